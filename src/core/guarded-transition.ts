/**
 * The one guarded-transition write of every projection (DC-3): an UPDATE whose `WHERE status IN (…)`
 * comes from the projection's declared state machine, so a late or duplicate transition is a
 * harmless no-op that reports what the row is now, and is counted in
 * `projection_transitions_rejected_total{projection,to}`.
 */
import type { StateMachine } from './state-machine';
import { jobMetrics } from './metrics';

/** Outcome of a guarded transition: `changed` false means the row's status did not allow it (`status`: the row now, null: no row). */
export interface TransitionResult<S extends string = string> {
  changed: boolean;
  status: S | null;
}

/** Which edges a write takes: `actor` (default the worker) and optionally a narrower set of sources than the table allows. */
export interface GuardOptions<S extends string, A extends string> {
  actor?: A | undefined;
  from?: readonly S[] | undefined;
}

/** One guarded write: its target state, its guarded UPDATE and how to read the row's status after a rejection. */
export interface GuardedWrite<S extends string, A extends string> extends GuardOptions<S, A> {
  to: S;
  /**
   * The UPDATE, restricted to rows whose status is in `from` (and any key or version condition of
   * its own). Answers what it moved: a Prisma batch payload, a raw row count or the returned rows.
   */
  write: (from: S[]) => Promise<{ count: number } | number | readonly unknown[]>;
  /** The row's status now (null: no such row); read only when the write moved nothing. */
  read: () => Promise<{ status: S } | null>;
}

/**
 * The `WHERE status IN (…)` list of a transition to `to` (for writes built as raw SQL or over a set
 * of rows): the table's sources for `actor`, or `from` when given.
 * @throws Error when no edge enters `to`, or `from` names a state the table does not allow: a
 *   programming error, never a late transition.
 */
export function transitionGuard<S extends string, A extends string>(machine: StateMachine<S, A>, to: S, opts: GuardOptions<S, A> = {}): S[] {
  const legal = machine.sourcesOf(to, opts.actor);
  const from = opts.from ? [...opts.from] : legal;
  const illegal = from.filter((s) => !legal.includes(s));
  if (from.length === 0 || illegal.length > 0) {
    throw new Error(`${machine.projection}: ${illegal.join(', ') || 'no state'} → ${to} is not an edge of ${opts.actor ?? 'worker'}`);
  }
  return from;
}

/**
 * Reports a guarded write made elsewhere (e.g. inside one SQL statement): `moved` true → the row is
 * at `to`; false → a rejected transition, counted, and the row's status read with `read`.
 */
export async function settleTransition<S extends string, A extends string>(
  machine: StateMachine<S, A>,
  to: S,
  moved: boolean,
  read: () => Promise<{ status: S } | null>,
): Promise<TransitionResult<S>> {
  if (moved) return { changed: true, status: to };
  const row = await read();
  jobMetrics.rejected(machine.projection, to);
  return { changed: false, status: row?.status ?? null };
}

/**
 * Moves one row to `t.to` with `t.write`, guarded by the machine's sources (DC-3). A write that moves
 * nothing (the row is elsewhere, or gone) changes nothing and answers the row's status now.
 * @throws Error from {@link transitionGuard} on an illegal declaration of the write; whatever
 *   `write` or `read` throw.
 */
export async function guardedTransition<S extends string, A extends string>(machine: StateMachine<S, A>, t: GuardedWrite<S, A>): Promise<TransitionResult<S>> {
  const written = await t.write(transitionGuard(machine, t.to, t));
  const moved = typeof written === 'number' ? written > 0 : 'count' in written ? written.count > 0 : written.length > 0;
  return settleTransition(machine, t.to, moved, t.read);
}
