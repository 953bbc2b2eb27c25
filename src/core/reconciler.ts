/**
 * The one reconciler (SAN-4 pattern, DC-3): a pass over a family's lost items (committed resources
 * whose workflow start was lost, runs that closed without finishing their row …) in which the
 * family's rule settles each one: restarts it, closes it, or leaves it. The pass heartbeats per
 * item, counts the actions per kind in one report shape and in `job_recovery_actions_total`, and
 * logs once. An item whose settling throws is counted and logged and never ends the pass: it stays
 * lost, and the next pass takes it again.
 */
import { heartbeat } from './heartbeat';
import { jobMetrics } from './metrics';

/** What a pass did: how many items it examined and how many got each action. */
export interface PassReport<A extends string = string> {
  /** The rule's name: the `rule` label of `job_recovery_actions_total` and of the pass's log line. */
  rule: string;
  examined: number;
  /** Action → number of items that got it (actions nobody got are absent). */
  counts: Partial<Record<A, number>>;
}

/** An empty report of `rule`. */
export function newPassReport<A extends string>(rule: string): PassReport<A> {
  return { rule, examined: 0, counts: {} };
}

/** Counts one examined item and its actions, in `report` and in `job_recovery_actions_total`. */
export function countItem<A extends string>(report: PassReport<A>, actions: readonly A[]): void {
  report.examined += 1;
  for (const a of actions) report.counts[a] = (report.counts[a] ?? 0) + 1;
  jobMetrics.recovery(report.rule, actions);
}

/** How many items of `report` got `action` (0 when none). */
export function countOf<A extends string>(report: PassReport<A>, action: A): number {
  return report.counts[action] ?? 0;
}

/** The log of a pass (the activity logger, or a test's). */
export interface PassLog {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** A family's reconcile rule: which items are lost, and how each is settled. */
export interface ReconcileRule<Item, A extends string> {
  /** Name of the rule ({@link PassReport.rule}), e.g. `reconcile-pending-jobs`. */
  rule: string;
  /** The lost items, oldest first. An async iterable (e.g. a visibility listing) is read lazily, as far as `limit`. */
  lost(): Iterable<Item> | AsyncIterable<Item> | Promise<Iterable<Item>>;
  /** Restarts, closes or leaves one item and says what it did; null: examined, nothing done. */
  settle(item: Item): Promise<A | null>;
  /** The action counted for an item whose `settle` threw. */
  failed: A;
  /** Log fields naming an item (e.g. `{ jobId }`; never a secret). */
  ids(item: Item): Readonly<Record<string, unknown>>;
  /** Most items examined in one pass (default: every item `lost` yields). */
  limit?: number;
}

/**
 * Runs one pass of `rule` (see the module comment). Safe to repeat and to run concurrently when
 * each `settle` is idempotent (a start keyed by the workflow ID, a guarded transition).
 * @throws only what `rule.lost` throws (the items could not be listed).
 */
export async function reconcile<Item, A extends string>(rule: ReconcileRule<Item, A>, log: PassLog): Promise<PassReport<A>> {
  const report = newPassReport<A>(rule.rule);
  const limit = rule.limit ?? Number.POSITIVE_INFINITY;
  for await (const item of await rule.lost()) {
    if (report.examined >= limit) break;
    heartbeat();
    let action: A | null;
    try {
      action = await rule.settle(item);
    } catch (err) {
      action = rule.failed;
      log.warn(`${rule.rule}: an item was not settled; the next pass takes it again`, { ...rule.ids(item), error: String(err) });
    }
    countItem(report, action === null ? [] : [action]);
  }
  if (report.examined > 0) log.info('reconcile pass', { rule: report.rule, examined: report.examined, counts: report.counts });
  return report;
}
