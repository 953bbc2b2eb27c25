/**
 * The AI runtime contract `ai-run/v1` (AR-2, AR-6, AR-9) as zod schemas: what the server sends to
 * the runtime (one request per attempt) and what it accepts back. The server re-validates every
 * answer with {@link parseRuntimeAnswer} before anything becomes a candidate: task types must exist
 * in the workflow catalog and every slot must have its catalog type; an answer that fails is stored
 * as the attempt's validation error, never as a candidate (AR-9). Issues name paths and rules,
 * never input values. Pure (zod only): safe in workflow code.
 */
import { z } from 'zod';
import { CURRENCIES, WORKFLOW_CATALOG, findWorkflow, type SlotSpec, type WorkflowCatalog } from './catalog';

/** Version of this contract; sent as the `X-Contract-Version` header and echoed by every answer. */
export const CONTRACT_VERSION = 'ai-run/v1';
/** HTTP header carrying the contract version, both ways. */
export const CONTRACT_VERSION_HEADER = 'X-Contract-Version';

/** Time zone of relative dates ("by Friday") when a request names none. */
export const DEFAULT_TIME_ZONE = 'Asia/Seoul';

/** Longest request text accepted by the contract, in UTF-16 code units. */
export const MAX_REQUEST_TEXT = 10_000;
/** At most this many candidates per answer. */
export const MAX_CANDIDATES = 5;
/** Longest `text` slot value and candidate title, in UTF-16 code units. */
export const MAX_TEXT_SLOT = 500;
export const MAX_TITLE = 200;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'not a calendar date');

/** A version label: 1-128 printable ASCII characters without spaces. */
const versionLabel = z.string().regex(/^[\x21-\x7e]{1,128}$/, 'expected 1-128 printable ASCII characters without spaces');

/**
 * One request to the runtime (one attempt). `referenceTime` (ISO 8601 instant) and `timeZone`
 * (IANA, default `Asia/Seoul`) anchor relative dates ("by Friday"), so every attempt of a run reads
 * them the same way; `attempt` is the run's attempt number (1-based), for the runtime's logs.
 */
export const RuntimeRequestSchema = z.strictObject({
  requestId: z.string().min(1).max(128),
  text: z.string().min(1).max(MAX_REQUEST_TEXT),
  locale: z.enum(['ko', 'en']).optional(),
  workflowCatalogVersion: versionLabel,
  referenceTime: z.iso.datetime({ offset: true }).optional(),
  timeZone: z.string().min(1).max(64).optional(),
  attempt: z.number().int().min(1).max(1000).optional(),
});
export type RuntimeRequest = z.infer<typeof RuntimeRequestSchema>;

/** The version set of an answer, stored per attempt (AR-6). */
export const RuntimeVersionsSchema = z.strictObject({
  backend: versionLabel,
  agent: versionLabel,
  model: versionLabel,
  prompt: versionLabel,
  contextPack: versionLabel,
  workflowCatalog: versionLabel,
  contract: versionLabel,
  knowledge: versionLabel,
});
export type RuntimeVersions = z.infer<typeof RuntimeVersionsSchema>;

/** Value shapes per slot type (see catalog.ts). */
export const DateSlotSchema = isoDate;
export const DateRangeSlotSchema = z
  .strictObject({ start: isoDate, end: isoDate })
  .refine((r) => r.start <= r.end, { message: 'start is after end', path: ['end'] });
export const AmountSlotSchema = z.strictObject({
  value: z.number().finite().positive().max(1e12).refine((v) => Math.round(v * 100) === v * 100, 'at most two decimals'),
  currency: z.enum(CURRENCIES),
});
export const CountSlotSchema = z.number().positive().max(10_000).refine((v) => Number.isInteger(v * 2), 'expected a whole or half number');
export const TextSlotSchema = z.string().trim().min(1).max(MAX_TEXT_SLOT);

/** A validated slot value. */
export type SlotValue = string | number | { start: string; end: string } | { value: number; currency: (typeof CURRENCIES)[number] };

/** Reasons an answer may give for ambiguity (stable codes, no free text: nothing of the input). */
export const AMBIGUITY_REASONS = ['MULTIPLE_MATCHES', 'NO_MATCH', 'LOW_CONFIDENCE', 'UNCLEAR_SLOT'] as const;
export type AmbiguityReason = (typeof AMBIGUITY_REASONS)[number];

const CandidateShape = z.strictObject({
  taskType: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'expected an upper-case task type code'),
  title: z.string().trim().min(1).max(MAX_TITLE),
  slots: z.record(z.string(), z.unknown()),
  missingSlots: z.array(z.string().max(64)).max(32),
  confidence: z.number().min(0).max(1),
});

const AnswerShape = z.strictObject({
  contractVersion: versionLabel,
  requestId: z.string().min(1).max(128),
  versions: RuntimeVersionsSchema,
  candidates: z.array(CandidateShape).max(MAX_CANDIDATES),
  ambiguity: z.strictObject({
    ambiguous: z.boolean(),
    reasons: z.array(z.enum(AMBIGUITY_REASONS)).max(AMBIGUITY_REASONS.length),
  }),
});

/** One validated candidate; `slots` values have their catalog type, `missingSlots` is normalised. */
export interface RuntimeCandidate {
  taskType: string;
  title: string;
  slots: Record<string, SlotValue>;
  /** Catalog slot names absent from `slots`: what the runtime listed plus every absent required slot, in catalog order. */
  missingSlots: string[];
  confidence: number;
}

/** A validated runtime answer (AR-2). */
export interface RuntimeAnswer {
  contractVersion: string;
  requestId: string;
  versions: RuntimeVersions;
  candidates: RuntimeCandidate[];
  ambiguity: { ambiguous: boolean; reasons: AmbiguityReason[] };
}

/** One validation issue: a path of schema keys and indexes, and a rule; never an input value. */
export interface ContractIssue {
  path: string;
  message: string;
}

/** Result of {@link parseRuntimeAnswer}. */
export type ParseRuntimeAnswerResult =
  | { ok: true; answer: RuntimeAnswer }
  | { ok: false; code: 'SCHEMA_VIOLATION' | 'CONTRACT_VERSION_MISMATCH'; issues: ContractIssue[] };

/** At most this many issues are reported. */
const MAX_ISSUES = 20;

const SLOT_SCHEMAS: Record<SlotSpec['type'], z.ZodType> = {
  date: DateSlotSchema,
  'date-range': DateRangeSlotSchema,
  amount: AmountSlotSchema,
  count: CountSlotSchema,
  text: TextSlotSchema,
  enum: z.string(),
};

/** Path segments that are schema keys or indexes; anything else (a record key from the input) is hidden. */
function safePath(path: readonly PropertyKey[]): string {
  const parts = path.map((p) => (typeof p === 'number' ? String(p) : typeof p === 'string' && /^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(p) ? p : '?'));
  return parts.join('.') || '(root)';
}

/** A message naming the rule that failed, built from the issue's kind only (zod's own may quote keys). */
function safeMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      return `too small: minimum ${String(issue.minimum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'too_big':
      return `too big: maximum ${String(issue.maximum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'invalid_value':
      return 'not one of the allowed values';
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length === 1 ? '' : 's'} (${issue.keys.length})`;
    case 'invalid_format':
      return `invalid ${issue.format}`;
    case 'custom':
      return issue.message;
    default:
      return issue.code.replace(/_/g, ' ');
  }
}

function zodIssues(error: z.ZodError, prefix: PropertyKey[] = []): ContractIssue[] {
  return error.issues.map((i) => ({ path: safePath([...prefix, ...i.path]), message: safeMessage(i) }));
}

/**
 * Re-validates a raw runtime answer (AR-2, AR-9) against the contract and `catalog`:
 * - `CONTRACT_VERSION_MISMATCH` when `contractVersion` or `versions.contract` is not
 *   {@link CONTRACT_VERSION}, or `versions.workflowCatalog` is not the catalog's version (checked
 *   first: a foreign contract's fields mean nothing here);
 * - `SCHEMA_VIOLATION` for a wrong shape, an unknown task type, an unknown slot name, a slot value of
 *   the wrong type (dates `YYYY-MM-DD`, ranges with start ≤ end, amounts with a known currency, an
 *   enum outside its values …), a `missingSlots` entry that is not a slot of the task type or is
 *   filled, or a `requestId` other than `expect.requestId`.
 * On success `missingSlots` is normalised: every required slot absent from `slots` is listed (the
 * server owns the NEEDS_INFO rule, AR-3). Issues never contain input values (AR-6), at most 20.
 */
export function parseRuntimeAnswer(
  raw: unknown,
  expect: { requestId?: string } = {},
  catalog: WorkflowCatalog = WORKFLOW_CATALOG,
): ParseRuntimeAnswerResult {
  const versionIssues: ContractIssue[] = [];
  if (typeof raw === 'object' && raw !== null) {
    const r = raw as { contractVersion?: unknown; versions?: { contract?: unknown; workflowCatalog?: unknown } };
    if (typeof r.contractVersion === 'string' && r.contractVersion !== CONTRACT_VERSION) {
      versionIssues.push({ path: 'contractVersion', message: `expected ${CONTRACT_VERSION}` });
    }
    const v = typeof r.versions === 'object' && r.versions !== null ? r.versions : {};
    if (typeof v.contract === 'string' && v.contract !== CONTRACT_VERSION) {
      versionIssues.push({ path: 'versions.contract', message: `expected ${CONTRACT_VERSION}` });
    }
    if (typeof v.workflowCatalog === 'string' && v.workflowCatalog !== catalog.version) {
      versionIssues.push({ path: 'versions.workflowCatalog', message: `expected ${catalog.version}` });
    }
  }
  if (versionIssues.length > 0) return { ok: false, code: 'CONTRACT_VERSION_MISMATCH', issues: versionIssues };

  const shape = AnswerShape.safeParse(raw);
  if (!shape.success) return { ok: false, code: 'SCHEMA_VIOLATION', issues: zodIssues(shape.error).slice(0, MAX_ISSUES) };

  const issues: ContractIssue[] = [];
  const data = shape.data;
  if (expect.requestId !== undefined && data.requestId !== expect.requestId) {
    issues.push({ path: 'requestId', message: 'does not match the request' });
  }
  const candidates: RuntimeCandidate[] = [];
  data.candidates.forEach((c, i) => {
    const at = `candidates.${i}`;
    const spec = findWorkflow(c.taskType, catalog);
    if (!spec) {
      issues.push({ path: `${at}.taskType`, message: `not a task type of workflow catalog ${catalog.version}` });
      return;
    }
    const slots: Record<string, SlotValue> = Object.create(null) as Record<string, SlotValue>;
    let unknown = 0;
    for (const [name, value] of Object.entries(c.slots)) {
      const slot = spec.slots.find((s) => s.name === name);
      if (!slot) {
        unknown++;
        continue;
      }
      if (value === null || value === undefined) continue; // an explicit null is an absent slot
      const parsed = SLOT_SCHEMAS[slot.type].safeParse(value);
      if (!parsed.success) {
        issues.push(...zodIssues(parsed.error, ['candidates', i, 'slots', name]).map((x) => ({ ...x, message: `${slot.type} slot: ${x.message}` })));
        continue;
      }
      if (slot.type === 'enum' && !(slot.values ?? []).some((v) => v.value === parsed.data)) {
        issues.push({ path: `${at}.slots.${name}`, message: 'enum slot: not one of the allowed values' });
        continue;
      }
      slots[name] = parsed.data as SlotValue;
    }
    if (unknown > 0) issues.push({ path: `${at}.slots`, message: `unknown slot name${unknown === 1 ? '' : 's'} for ${spec.taskType} (${unknown})` });
    c.missingSlots.forEach((name, j) => {
      if (!spec.slots.some((s) => s.name === name)) issues.push({ path: `${at}.missingSlots.${j}`, message: `not a slot of ${spec.taskType}` });
      else if (Object.hasOwn(slots, name)) issues.push({ path: `${at}.missingSlots.${j}`, message: 'slot is listed as missing but filled' });
    });
    const missing = spec.slots.filter((s) => !Object.hasOwn(slots, s.name) && (s.required || c.missingSlots.includes(s.name))).map((s) => s.name);
    candidates.push({ taskType: c.taskType, title: c.title, slots: { ...slots }, missingSlots: missing, confidence: c.confidence });
  });
  if (issues.length > 0) return { ok: false, code: 'SCHEMA_VIOLATION', issues: issues.slice(0, MAX_ISSUES) };
  return {
    ok: true,
    answer: { contractVersion: data.contractVersion, requestId: data.requestId, versions: data.versions, candidates, ambiguity: data.ambiguity },
  };
}
