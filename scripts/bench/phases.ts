/**
 * Where the latency of one workflow goes (the profile of the bench's (b)): reads the
 * histories of sampled runs and splits start → completion into phases between history events
 * (server timestamps), plus the client's own moments around them (submit, seen done). Every phase
 * is reported as its median over the sample, in ms. Measurement only; no service code uses it.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { median } from './measure';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One sampled run: its workflow ID and, when known, client-side times (epoch ms). */
export interface PhaseSample {
  workflowId: string;
  /** When the client sent the request that led to the start (POST /scraps, workflow.start). */
  submittedAt?: number;
  /** When the client saw the job done (GET /async-jobs said COMPLETED, handle.result() returned). */
  seenAt?: number;
}

const EVENT = {
  started: 1, // WORKFLOW_EXECUTION_STARTED
  completed: 2, // WORKFLOW_EXECUTION_COMPLETED
  wftScheduled: 5,
  wftStarted: 6,
  wftCompleted: 7,
  actScheduled: 10,
  actStarted: 11,
  actCompleted: 12,
  marker: 18,
} as const;

function eventMs(e: HistoryEvent): number {
  const t = e.eventTime;
  if (!t) return Number.NaN;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** Named phases of one history (ms), in their order; the client's times when given. */
function phasesOf(events: HistoryEvent[], s: PhaseSample): [string, number][] {
  const out: [string, number][] = [];
  const t0 = eventMs(events[0]!);
  if (s.submittedAt !== undefined) out.push(['client submit → WorkflowExecutionStarted', t0 - s.submittedAt]);
  let prev = t0;
  let prevName = 'started';
  let wft = 0;
  let act = 0;
  for (const e of events.slice(1)) {
    const type = Number(e.eventType);
    let name: string | undefined;
    if (type === EVENT.wftStarted) name = `WFT${++wft} started`;
    else if (type === EVENT.wftCompleted) name = `WFT${wft} completed`;
    else if (type === EVENT.actStarted) name = `activity${++act} started`;
    else if (type === EVENT.actCompleted) name = `activity${act} completed`;
    else if (type === EVENT.completed) name = 'workflow completed';
    if (!name) continue;
    const t = eventMs(e);
    out.push([`${prevName} → ${name}`, t - prev]);
    prev = t;
    prevName = name;
  }
  if (s.seenAt !== undefined) out.push([`${prevName} → client saw it done`, s.seenAt - prev]);
  if (s.submittedAt !== undefined && s.seenAt !== undefined) out.push(['total (client)', s.seenAt - s.submittedAt]);
  out.push([`events in history`, events.length]);
  return out;
}


/**
 * Report lines: the median of each phase over `samples` (histories fetched one by one; a run
 * that cannot be read is left out). Runs with different shapes (e.g. a retried activity) have
 * other phase names; each name's median is over the runs that have it, its count in brackets.
 */
export async function phaseReport(client: Client, title: string, samples: PhaseSample[]): Promise<string[]> {
  const byPhase = new Map<string, number[]>();
  let read = 0;
  for (const s of samples) {
    let events: HistoryEvent[];
    try {
      events = ((await client.workflow.getHandle(s.workflowId).fetchHistory()).events ?? []) as HistoryEvent[];
    } catch {
      continue;
    }
    if (events.length === 0) continue;
    read++;
    for (const [k, v] of phasesOf(events, s)) byPhase.set(k, [...(byPhase.get(k) ?? []), v]);
  }
  const lines = [`${title}: median per phase over ${read} runs (ms; server event times, client times where given)`];
  for (const [k, v] of byPhase) lines.push(`  ${k}: ${median(v.filter(Number.isFinite)).toFixed(0)}${v.length === read ? '' : ` [${v.length}]`}`);
  return lines;
}
