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
  /**
   * Other moments of the run (epoch ms) by name, e.g. a projection row's timestamps: merged into
   * the timeline of a {@link timelineReport} in time order.
   */
  moments?: Record<string, number>;
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
  signaled: 26,
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
 * The named moments of one history in time order: activities by their type (`scrapePortal
 * scheduled/started/completed`), signals by their name, workflow tasks numbered, plus the sample's
 * client times and `moments`.
 */
function timelineOf(events: HistoryEvent[], s: PhaseSample): [string, number][] {
  const points: [string, number][] = [['WorkflowExecutionStarted', eventMs(events[0]!)]];
  if (s.submittedAt !== undefined) points.push(['client submit', s.submittedAt]);
  const typeOf = new Map<string, string>();
  let wft = 0;
  for (const e of events.slice(1)) {
    const type = Number(e.eventType);
    let name: string | undefined;
    if (type === EVENT.wftStarted) name = `WFT${++wft} started`;
    else if (type === EVENT.wftCompleted) name = `WFT${wft} completed`;
    else if (type === EVENT.actScheduled) {
      const t = e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'activity';
      typeOf.set(String(e.eventId), t);
      name = `${t} scheduled`;
    } else if (type === EVENT.actStarted) name = `${typeOf.get(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) ?? 'activity'} started`;
    else if (type === EVENT.actCompleted) name = `${typeOf.get(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)) ?? 'activity'} completed`;
    else if (type === EVENT.signaled) name = `signal ${e.workflowExecutionSignaledEventAttributes?.signalName ?? ''} received`;
    else if (type === EVENT.completed) name = 'workflow completed';
    if (name) points.push([name, eventMs(e)]);
  }
  for (const [k, v] of Object.entries(s.moments ?? {})) points.push([k, v]);
  if (s.seenAt !== undefined) points.push(['client saw it done', s.seenAt]);
  // Stable sort: moments at the same ms keep their insertion order (history first).
  return points.filter(([, t]) => Number.isFinite(t)).sort((a, b) => a[1] - b[1]);
}

/** The samples' histories, fetched one by one; a run whose history cannot be read (or is empty) is left out. */
async function* histories(client: Client, samples: PhaseSample[]): AsyncGenerator<{ s: PhaseSample; events: HistoryEvent[] }> {
  for (const s of samples) {
    let events: HistoryEvent[];
    try {
      events = ((await client.workflow.getHandle(s.workflowId).fetchHistory()).events ?? []) as HistoryEvent[];
    } catch {
      continue;
    }
    if (events.length > 0) yield { s, events };
  }
}

/**
 * Report lines of one workflow type's latency as a timeline: the median of each step between
 * consecutive named moments ({@link timelineOf}) over `samples`, the total, and the events per
 * history. A run whose moments fall in another order has other step names; each step's median is
 * over the runs that have it, their count in brackets.
 */
export async function timelineReport(client: Client, title: string, samples: PhaseSample[]): Promise<string[]> {
  const bySteps = new Map<string, number[]>();
  let read = 0;
  for await (const { s, events } of histories(client, samples)) {
    read++;
    const points = timelineOf(events, s);
    const add = (k: string, v: number) => bySteps.set(k, [...(bySteps.get(k) ?? []), v]);
    for (let i = 1; i < points.length; i++) add(`${points[i - 1]![0]} → ${points[i]![0]}`, points[i]![1] - points[i - 1]![1]);
    add('total (first → last moment)', points[points.length - 1]![1] - points[0]![1]);
    add('events in history', events.length);
  }
  const lines = [`${title}: median per step over ${read} runs (ms; server event times, projection and client times)`];
  for (const [k, v] of bySteps) lines.push(`  ${k}: ${median(v).toFixed(0)}${v.length === read ? '' : ` [${v.length}]`}`);
  return lines;
}

/**
 * Report lines: the median of each phase over `samples` (histories fetched one by one; a run
 * that cannot be read is left out). Runs with different shapes (e.g. a retried activity) have
 * other phase names; each name's median is over the runs that have it, its count in brackets.
 */
export async function phaseReport(client: Client, title: string, samples: PhaseSample[]): Promise<string[]> {
  const byPhase = new Map<string, number[]>();
  let read = 0;
  for await (const { s, events } of histories(client, samples)) {
    read++;
    for (const [k, v] of phasesOf(events, s)) byPhase.set(k, [...(byPhase.get(k) ?? []), v]);
  }
  const lines = [`${title}: median per phase over ${read} runs (ms; server event times, client times where given)`];
  for (const [k, v] of byPhase) lines.push(`  ${k}: ${median(v.filter(Number.isFinite)).toFixed(0)}${v.length === read ? '' : ` [${v.length}]`}`);
  return lines;
}
