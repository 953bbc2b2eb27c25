/**
 * The offline, deterministic `local` AI runtime (AR-2, AR-3), the default: it matches the request
 * text against the workflow catalog (Korean and English cues), fills slots from the text's key
 * values (dates incl. relative ones, ranges, amounts in ₩/원/$, counts, enum values such as the
 * certificate's purpose, a new address, the employee's name when given), lists the missing slots and reports ambiguity when two
 * catalog entries fit. Same request → same answer (relative dates resolve against the request's
 * `referenceTime`). Its answers follow the `ai-run/v1` contract and are re-validated by the caller
 * like any runtime's (AR-2). One call per `analyze`, never retried (AR-8).
 *
 * Scoring: a task type's own cue ("employment certificate", "재직증명서") is worth 3, a shared
 * weak cue ("certificate", "증명서") 1, an enum value cue of one of its slots ("visa") 1. A task
 * type fits with a score ≥ 2 and ≥ 60% of the best score; two or more fits are ambiguous
 * (`MULTIPLE_MATCHES`), none is `NO_MATCH`. Confidence = match strength s/(s+1.5) × slot
 * completeness (0.8 + 0.2 × filled required / required) × the fit's share of all fitting scores
 * when ambiguous, rounded to two decimals.
 */
import { performance } from 'node:perf_hooks';
import { WORKFLOW_CATALOG, type Cues, type SlotSpec, type WorkflowCatalog, type WorkflowSpec } from '../../../domain/ai-runs/catalog';
import { CONTRACT_VERSION, DEFAULT_TIME_ZONE, MAX_TEXT_SLOT, RuntimeRequestSchema, type AmbiguityReason, type RuntimeRequest, type RuntimeVersions, type SlotValue } from '../../../domain/ai-runs/contract';
import { requestDay, workingDayRange } from '../../../domain/ai-runs/calendar';
import { extractKeyValues, type KeyValues } from '../../../domain/ai-runs/extract';
import { blankSensitive } from '../../../domain/ai-runs/sensitive';
import { cutToLength } from '../../../core/text';
import {
  RuntimeCancelledError,
  RuntimeRejectedError,
  RuntimeTimeoutError,
  RuntimeUnavailableError,
  type AiRuntimeClient,
  type AnalyzeOptions,
  type AnalyzeResult,
} from './client';

/** Below this confidence the best candidate adds `LOW_CONFIDENCE` to the ambiguity reasons. */
export const LOCAL_LOW_CONFIDENCE = 0.5;

const STRONG = 3;
const WEAK = 1;
const ENUM_EVIDENCE = 1;
const FIT_MIN_SCORE = 2;
const FIT_MIN_SHARE_OF_BEST = 0.6;

/** The version set the local runtime reports (AR-6). */
export function localVersions(catalog: WorkflowCatalog = WORKFLOW_CATALOG): RuntimeVersions {
  return {
    backend: 'local-runtime/1',
    agent: 'catalog-matcher/1',
    model: 'rules/1',
    prompt: 'none/0',
    contextPack: 'none/0',
    workflowCatalog: catalog.version,
    contract: CONTRACT_VERSION,
    knowledge: 'none/0',
  };
}

/** The answer JSON (contract `ai-run/v1`) before the server's re-validation. */
export interface LocalAnswer {
  contractVersion: string;
  requestId: string;
  versions: RuntimeVersions;
  candidates: { taskType: string; title: string; slots: Record<string, SlotValue>; missingSlots: string[]; confidence: number }[];
  ambiguity: { ambiguous: boolean; reasons: AmbiguityReason[] };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const cueRegexCache = new Map<string, RegExp>();
/** Position of the first match of any cue in `s` (ASCII-lower-cased), or -1. */
function firstCue(s: string, cues: Cues): number {
  let best = -1;
  for (const cue of cues.ko) {
    const at = s.indexOf(cue);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  for (const cue of cues.en) {
    let re = cueRegexCache.get(cue);
    if (!re) {
      re = new RegExp(`(?<![a-z0-9])${escapeRegex(cue)}(?![a-z0-9])`);
      cueRegexCache.set(cue, re);
    }
    const at = s.search(re);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

function score(s: string, spec: WorkflowSpec): number {
  let total = 0;
  if (firstCue(s, spec.cues) >= 0) total += STRONG;
  if (firstCue(s, spec.weakCues) >= 0) total += WEAK;
  if (spec.slots.some((slot) => (slot.values ?? []).some((v) => firstCue(s, v.cues) >= 0))) total += ENUM_EVIDENCE;
  return total;
}

// Address: "new address is …", "moved to …", "새 주소는 …", "주소를 … 로 변경".
const EN_ADDRESS = /(?:new address(?: is)?|moved to|moving to|change my address to|update my address to|address is now)\s*:?\s*([^\n;!?]+?)\s*(?=$|[\n;!?]|\.(?:\s|$)|\s(?:from|starting|effective|as of|on|by|and my|please)\b)/;
const KO_ADDRESS = /(?:새\s*주소|바뀐\s*주소|변경된\s*주소|주소)\s*(?:는|은|를|을|가|:)\s*([^\n;!?.]+?)\s*(?:(?:으로|로)\s*(?:변경|바꿔|바뀌|이사|옮)|입니다|이에요|예요|이고|$|[\n;!?.])/;
const KO_MOVED = /(?<![가-힣])([가-힣]{1,20}(?:시|도)\s[^\n;!?.,]{2,80}?)\s*(?:으로|로)\s*이사/;

function extractAddress(text: string, s: string): string | undefined {
  for (const re of [EN_ADDRESS, KO_ADDRESS, KO_MOVED]) {
    const m = re.exec(s);
    if (m?.[1]) {
      // Offsets of `s` are those of `text`: return the original spelling (case kept).
      const start = m.index + m[0].indexOf(m[1]);
      const value = text.slice(start, start + m[1].length).trim();
      if (value.length >= 3) return cutToLength(value, MAX_TEXT_SLOT);
    }
  }
  return undefined;
}

// A name the employee gives: "my name is Minji Kim", "this is Minji Kim", "제 이름은 김민지입니다", "저는 김민지입니다".
const EN_NAME = /\b(?:[Mm]y name is|[Tt]his is|I am|I'm)\s+([A-Z][a-z]{1,20}(?:[ -][A-Z][a-z]{1,20}){0,3})\b/;
const KO_NAME = /(?:제\s*이름은|저는|성명은?|이름은)\s*([가-힣]{2,4}?)\s*(?:입니다|이고|이며|이에요|예요|이라고|라고|님|씨|[,.\n]|$)/;

/** The name the text gives (from the sensitive-blanked text, original case), or undefined. */
function extractName(blanked: string): string | undefined {
  return (EN_NAME.exec(blanked)?.[1] ?? KO_NAME.exec(blanked)?.[1])?.trim() || undefined;
}

/** Fills the slots of `spec` from the key values; each key value fills at most one slot. */
function fillSlots(spec: WorkflowSpec, text: string, s: string, kv: KeyValues): Record<string, SlotValue> {
  const slots: Record<string, SlotValue> = {};
  const usedDates = new Set<number>();
  const usedRanges = new Set<number>();
  const usedAmounts = new Set<number>();
  const usedCounts = new Set<number>();
  const order: SlotSpec['type'][] = ['date-range', 'count', 'amount', 'date', 'enum', 'text'];
  const bySlotOrder = [...spec.slots].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  for (const slot of bySlotOrder) {
    switch (slot.type) {
      case 'date-range': {
        const prefer = slot.granularity === 'month' ? ['month', 'range'] : ['range'];
        const i = prefer.map((p) => kv.ranges.findIndex((r, j) => r.from === p && !usedRanges.has(j))).find((j) => j >= 0);
        if (i !== undefined) {
          const r = kv.ranges[i] as (typeof kv.ranges)[number];
          usedRanges.add(i);
          slots[slot.name] = { start: r.startDate, end: r.endDate };
        } else if (slot.granularity !== 'month') {
          // One date (+ a day count): the range of that many working days from it.
          const d = kv.dates.findIndex((_, j) => !usedDates.has(j));
          if (d >= 0) {
            usedDates.add(d);
            const start = (kv.dates[d] as (typeof kv.dates)[number]).date;
            const days = kv.counts.find((c) => c.unit === 'days')?.value;
            const r = days ? workingDayRange(start, days) : { startDate: start, endDate: start };
            slots[slot.name] = { start: r.startDate, end: r.endDate };
          }
        }
        break;
      }
      case 'date': {
        const i = kv.dates.findIndex((_, j) => !usedDates.has(j));
        if (i >= 0) {
          usedDates.add(i);
          slots[slot.name] = (kv.dates[i] as (typeof kv.dates)[number]).date;
        }
        break;
      }
      case 'amount': {
        const i = kv.amounts.findIndex((_, j) => !usedAmounts.has(j));
        if (i >= 0) {
          usedAmounts.add(i);
          const a = kv.amounts[i] as (typeof kv.amounts)[number];
          slots[slot.name] = { value: a.value, currency: a.currency };
        }
        break;
      }
      case 'count': {
        const i = kv.counts.findIndex((c, j) => c.unit === slot.unit && !usedCounts.has(j));
        if (i >= 0) {
          usedCounts.add(i);
          slots[slot.name] = (kv.counts[i] as (typeof kv.counts)[number]).value;
        }
        break;
      }
      case 'enum': {
        let best: { value: string; at: number } | undefined;
        for (const v of slot.values ?? []) {
          const at = firstCue(s, v.cues);
          if (at >= 0 && (!best || at < best.at)) best = { value: v.value, at };
        }
        if (best) slots[slot.name] = best.value;
        break;
      }
      case 'text': {
        const value = slot.name === 'newAddress' ? extractAddress(text, s) : slot.name === 'employeeName' ? extractName(blankSensitive(text)) : undefined;
        if (value) slots[slot.name] = value;
        break;
      }
    }
  }
  // Catalog order for a stable JSON shape.
  return Object.fromEntries(spec.slots.filter((x) => Object.hasOwn(slots, x.name)).map((x) => [x.name, slots[x.name] as SlotValue]));
}

/**
 * The local runtime's answer to `request` (contract `ai-run/v1`), deterministic: relative dates
 * resolve against `request.referenceTime` (else `now`) in `request.timeZone` (else Asia/Seoul).
 * Pure computation, linear in the text length (≤ 10,000 characters by the contract).
 * @throws RuntimeRejectedError for an invalid request or one naming another catalog version.
 */
export function analyzeLocally(request: RuntimeRequest, options: { now?: Date; catalog?: WorkflowCatalog } = {}): LocalAnswer {
  const catalog = options.catalog ?? WORKFLOW_CATALOG;
  const parsed = RuntimeRequestSchema.safeParse(request);
  if (!parsed.success) {
    throw new RuntimeRejectedError(`local runtime: invalid request (${parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ')})`);
  }
  const req = parsed.data;
  if (req.workflowCatalogVersion !== catalog.version) {
    throw new RuntimeRejectedError(`local runtime: unknown workflow catalog version (serves ${catalog.version})`);
  }
  let today: string;
  try {
    today = requestDay(req.referenceTime ?? options.now ?? new Date(), req.timeZone ?? DEFAULT_TIME_ZONE);
  } catch {
    throw new RuntimeRejectedError('local runtime: unknown time zone');
  }
  const text = req.text.normalize('NFC');
  // ASCII lower case keeps offsets; sensitive spans are blanked so they match no cue.
  const s = blankSensitive(text).replace(/[A-Z]/g, (c) => c.toLowerCase());
  const locale = req.locale ?? (/[\uac00-\ud7a3]/.test(text) ? 'ko' : 'en');
  const kv = extractKeyValues(text, today);

  const scored = catalog.workflows.map((spec) => ({ spec, score: score(s, spec) })).filter((x) => x.score > 0);
  const best = Math.max(0, ...scored.map((x) => x.score));
  const fits = scored
    .filter((x) => x.score >= FIT_MIN_SCORE && x.score >= best * FIT_MIN_SHARE_OF_BEST)
    .sort((a, b) => b.score - a.score || catalog.workflows.indexOf(a.spec) - catalog.workflows.indexOf(b.spec));
  const total = fits.reduce((n, x) => n + x.score, 0);

  const candidates = fits.map(({ spec, score: sc }) => {
    const slots = fillSlots(spec, text, s, kv);
    const required = spec.slots.filter((x) => x.required);
    const filled = required.filter((x) => Object.hasOwn(slots, x.name)).length;
    const completeness = required.length === 0 ? 1 : filled / required.length;
    const share = fits.length > 1 ? sc / total : 1;
    const confidence = Math.round((sc / (sc + 1.5)) * (0.8 + 0.2 * completeness) * share * 100) / 100;
    return {
      taskType: spec.taskType,
      title: spec.title[locale],
      slots,
      missingSlots: required.filter((x) => !Object.hasOwn(slots, x.name)).map((x) => x.name),
      confidence,
    };
  });
  candidates.sort((a, b) => b.confidence - a.confidence);

  const reasons: AmbiguityReason[] = [];
  if (fits.length === 0) reasons.push('NO_MATCH');
  if (fits.length > 1) reasons.push('MULTIPLE_MATCHES');
  if (candidates.length > 0 && (candidates[0]?.confidence ?? 0) < LOCAL_LOW_CONFIDENCE) reasons.push('LOW_CONFIDENCE');
  return {
    contractVersion: CONTRACT_VERSION,
    requestId: req.requestId,
    versions: localVersions(catalog),
    candidates,
    ambiguity: { ambiguous: reasons.length > 0, reasons },
  };
}

/** Options of the local runtime client. */
export interface LocalRuntimeOptions {
  /** Reference time for requests without `referenceTime` (default: the wall clock). */
  now?: () => Date;
  /** Catalog to match (default: {@link WORKFLOW_CATALOG}). */
  catalog?: WorkflowCatalog;
  /**
   * Simulated call latency in milliseconds (default 0), waited before answering; a latency beyond
   * the call's `deadlineMs` rejects with RUNTIME_TIMEOUT at the deadline, like a slow remote runtime.
   */
  latencyMs?: number | ((request: RuntimeRequest) => number);
  /**
   * Demo hook for the RETRYING → SUCCEEDED path: when it returns true for a request's text, that
   * request's FIRST attempt (`request.attempt === 1`; without `attempt`, the first call with that
   * text in this client instance) rejects with a retryable RUNTIME_UNAVAILABLE, and later attempts
   * answer normally. Deterministic and stateless when the caller sends `attempt`.
   */
  failFirstAttemptWhen?: (text: string) => boolean;
}

/** A predicate for {@link LocalRuntimeOptions.failFirstAttemptWhen}: the text contains `marker` (case-sensitive). */
export function textContains(marker: string): (text: string) => boolean {
  return (text) => text.includes(marker);
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Creates the `local` runtime client (AR-2): one deterministic analysis per call, never retried
 * (AR-8). Rejects with RUNTIME_CANCELLED when `options.signal` aborts, RUNTIME_TIMEOUT when the
 * simulated latency passes `deadlineMs`, RUNTIME_REJECTED for an invalid request, and
 * RUNTIME_UNAVAILABLE (retryable) on a first attempt selected by `failFirstAttemptWhen`.
 */
export function createLocalAiRuntimeClient(options: LocalRuntimeOptions = {}): AiRuntimeClient {
  const failedOnce = new Set<string>();
  return {
    kind: 'local',
    async analyze(request: RuntimeRequest, call: AnalyzeOptions): Promise<AnalyzeResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      if (call.signal?.aborted) throw new RuntimeCancelledError('local runtime: call cancelled by the caller', { latencyMs: 0 });
      const latency = typeof options.latencyMs === 'function' ? options.latencyMs(request) : (options.latencyMs ?? 0);
      if (latency > 0) {
        const timeout = AbortSignal.timeout(Math.max(1, call.deadlineMs));
        const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
        try {
          await wait(latency, signal);
        } catch (err) {
          if (call.signal?.aborted) throw new RuntimeCancelledError('local runtime: call cancelled by the caller', { latencyMs: elapsed(), cause: err });
          throw new RuntimeTimeoutError(`local runtime: no answer within ${call.deadlineMs} ms`, { latencyMs: elapsed(), cause: err });
        }
      }
      if (options.failFirstAttemptWhen && typeof request.text === 'string' && options.failFirstAttemptWhen(request.text)) {
        const first = request.attempt !== undefined ? request.attempt === 1 : !failedOnce.has(request.text);
        if (first) {
          if (request.attempt === undefined) failedOnce.add(request.text);
          throw new RuntimeUnavailableError('local runtime: simulated outage on the first attempt (failFirstAttemptWhen)', { latencyMs: elapsed() });
        }
      }
      const answer = analyzeLocally(request, { now: options.now?.(), catalog: options.catalog });
      // A JSON round trip, so the caller gets exactly what the HTTP adapter would hand over.
      return { raw: JSON.parse(JSON.stringify(answer)) as unknown, latencyMs: elapsed() };
    },
  };
}
