/**
 * AR-9 guards over validated candidates: invalid JSON never gets here (contract.ts), and these
 * checks keep lost key values and sensitive data from reaching a Task automatically. Per candidate:
 * - `LOST_KEY_VALUE`: a date, date range, month, amount or count present in the input text appears
 *   in no slot of the candidate (e.g. "by Friday" or "₩350,000" dropped, or changed);
 * - `SENSITIVE_DATA`: a phone number, e-mail address, resident registration number or account
 *   number in a field that would be sent (a text slot, the title).
 * A candidate with any finding is `blocked`: it cannot become a Task automatically. Findings name
 * the field and the kind, never the value (AR-6). Pure: safe in workflow code.
 */
import { WORKFLOW_CATALOG, findWorkflow, type SlotType, type WorkflowCatalog } from './catalog';
import { DEFAULT_TIME_ZONE, type RuntimeCandidate, type SlotValue } from './contract';
import { daysBetween, requestDay, workingDays } from './calendar';
import { extractKeyValues, type KeyValues } from './extract';
import { findSensitive, type SensitiveKind } from './sensitive';

/** Stable finding codes. */
export const GUARD_CODES = ['LOST_KEY_VALUE', 'SENSITIVE_DATA'] as const;
export type GuardCode = (typeof GUARD_CODES)[number];

/** Kinds of key value a LOST_KEY_VALUE finding names. */
export type KeyValueKind = 'date' | 'amount' | 'count';

/**
 * One finding. `field` is the candidate field concerned: for SENSITIVE_DATA the field holding the
 * data (a slot name, or `title` for the candidate's title; no catalog slot is called `title`); for
 * LOST_KEY_VALUE the first slot of the candidate's task type that could hold the value (an empty
 * one first), or null when the task type has none. `occurrences` counts the values of that kind
 * lost (or sensitive items found) for that field.
 */
export type GuardFinding =
  | { code: 'LOST_KEY_VALUE'; kind: KeyValueKind; field: string | null; occurrences: number }
  | { code: 'SENSITIVE_DATA'; kind: SensitiveKind; field: string; occurrences: number };

/** The guards' verdict on one candidate. */
export interface GuardResult {
  findings: GuardFinding[];
  blocked: boolean;
}

/** The input the guards compare against: the raw text and the reference time of the request. */
export interface GuardInput {
  text: string;
  /** ISO instant (the request's `referenceTime`) or a Date; relative dates resolve against it. */
  referenceTime: string | Date;
  /** IANA time zone (default Asia/Seoul). */
  timeZone?: string;
}

type Range = { start: string; end: string };

const isRange = (v: SlotValue): v is Range => typeof v === 'object' && 'start' in v;
const isAmount = (v: SlotValue): v is { value: number; currency: 'KRW' | 'USD' } => typeof v === 'object' && 'currency' in v;

function slotsOfType(candidate: Pick<RuntimeCandidate, 'taskType' | 'slots'>, catalog: WorkflowCatalog, types: readonly SlotType[]): { name: string; value: SlotValue | undefined }[] {
  const spec = findWorkflow(candidate.taskType, catalog);
  return (spec?.slots ?? []).filter((s) => types.includes(s.type)).map((s) => ({ name: s.name, value: candidate.slots[s.name] }));
}

/** Every key value of the text, as coverage checks over the candidate's slot values. */
function lostKeyValues(kv: KeyValues, candidate: Pick<RuntimeCandidate, 'taskType' | 'slots'>, catalog: WorkflowCatalog): GuardFinding[] {
  const values = Object.values(candidate.slots);
  const dates = values.filter((v): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v));
  const ranges = values.filter(isRange);
  const amounts = values.filter(isAmount);
  const counts = values.filter((v): v is number => typeof v === 'number');

  const dateCovered = (d: string) => dates.includes(d) || ranges.some((r) => r.start <= d && d <= r.end);
  const lost: Record<KeyValueKind, number> = { date: 0, amount: 0, count: 0 };
  for (const d of kv.dates) if (!dateCovered(d.date)) lost.date++;
  for (const r of kv.ranges) {
    const covered =
      r.from === 'month'
        ? ranges.some((x) => x.start <= r.endDate && r.startDate <= x.end) || dates.some((d) => r.startDate <= d && d <= r.endDate)
        : dateCovered(r.startDate) && dateCovered(r.endDate);
    if (!covered) lost.date++;
  }
  for (const a of kv.amounts) if (!amounts.some((x) => x.currency === a.currency && x.value === a.value)) lost.amount++;
  for (const c of kv.counts) {
    const covered =
      counts.includes(c.value) ||
      (c.unit === 'days' && ranges.some((r) => workingDays(r.start, r.end) === c.value || daysBetween(r.start, r.end) + 1 === c.value));
    if (!covered) lost.count++;
  }
  const fieldFor: Record<KeyValueKind, SlotType[]> = { date: ['date', 'date-range'], amount: ['amount'], count: ['count'] };
  return (['date', 'amount', 'count'] as const)
    .filter((kind) => lost[kind] > 0)
    .map((kind) => {
      const slots = slotsOfType(candidate, catalog, fieldFor[kind]);
      const field = (slots.find((s) => s.value === undefined) ?? slots[0])?.name;
      return { code: 'LOST_KEY_VALUE', kind, field: field ?? null, occurrences: lost[kind] };
    });
}

function sensitiveFields(candidate: Pick<RuntimeCandidate, 'title' | 'slots'>): GuardFinding[] {
  const findings: GuardFinding[] = [];
  const scan = (field: string, text: string) => {
    const byKind = new Map<SensitiveKind, number>();
    for (const s of findSensitive(text)) byKind.set(s.kind, (byKind.get(s.kind) ?? 0) + 1);
    for (const [kind, occurrences] of byKind) findings.push({ code: 'SENSITIVE_DATA', kind, field, occurrences });
  };
  scan('title', candidate.title);
  for (const [name, value] of Object.entries(candidate.slots)) if (typeof value === 'string') scan(name, value);
  return findings;
}

/**
 * The AR-9 findings of one validated candidate against the request's input. Blocked when any finding.
 * @throws RangeError for an invalid reference time or time zone.
 */
export function guardCandidate(input: GuardInput, candidate: Pick<RuntimeCandidate, 'taskType' | 'title' | 'slots'>, catalog: WorkflowCatalog = WORKFLOW_CATALOG): GuardResult {
  const today = requestDay(input.referenceTime, input.timeZone ?? DEFAULT_TIME_ZONE);
  const kv = extractKeyValues(input.text.normalize('NFC'), today);
  const findings = [...lostKeyValues(kv, candidate, catalog), ...sensitiveFields(candidate)];
  return { findings, blocked: findings.length > 0 };
}

/** {@link guardCandidate} for every candidate of an answer, in order (the text is scanned once). */
export function guardCandidates(
  input: GuardInput,
  candidates: readonly Pick<RuntimeCandidate, 'taskType' | 'title' | 'slots'>[],
  catalog: WorkflowCatalog = WORKFLOW_CATALOG,
): GuardResult[] {
  const today = requestDay(input.referenceTime, input.timeZone ?? DEFAULT_TIME_ZONE);
  const kv = extractKeyValues(input.text.normalize('NFC'), today);
  return candidates.map((c) => {
    const findings = [...lostKeyValues(kv, c, catalog), ...sensitiveFields(c)];
    return { findings, blocked: findings.length > 0 };
  });
}
