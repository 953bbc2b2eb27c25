/**
 * Declared state machines of the projection tables (DC-3): one transition table per projection,
 * edges per actor, and the questions every guarded write asks of it. Each family declares its
 * table in its domain folder; the guarded write that uses it is `src/core/transition.ts`.
 * Workflow-safe: no I/O.
 */

/**
 * The actor every table has: whoever drives the row forward (its workflow, a cancel, recovery
 * failing a lost run, a reviewer's decision). Other actors re-open terminal rows (a retry).
 */
export const WORKER = 'worker';

/** Outgoing edges per state (a state with none may be left out where the table is partial). */
export type Edges<S extends string> = Readonly<Partial<Record<S, readonly S[]>>>;

/**
 * Declaration of one projection's state machine.
 * - `projection`: the table's name (the `projection` label of the rejected-transitions metric).
 * - `states`: every stored status value, exactly as in the database.
 * - `worker`: the edges of the row's own lifecycle, one entry per state; a state with no worker
 *   edge is terminal, every other state is active.
 * - `actors`: the edges other actors take (a retry re-opening a terminal row), by actor name.
 */
export interface StateMachineSpec<S extends string, A extends string> {
  projection: string;
  states: readonly S[];
  worker: Readonly<Record<S, readonly S[]>>;
  actors?: Readonly<Record<A, Edges<S>>>;
}

/** One legal edge and the actor that takes it. */
export interface Edge<S extends string, A extends string> {
  from: S;
  to: S;
  actor: A;
}

/** A declared state machine; see {@link defineStateMachine}. Actor defaults to {@link WORKER}. */
export interface StateMachine<S extends string, A extends string = typeof WORKER> {
  readonly projection: string;
  readonly states: readonly S[];
  readonly actors: readonly A[];
  /** States with a worker edge out: the row may still change on its own. */
  readonly active: readonly S[];
  /** States without a worker edge out: only another actor (a retry) may re-open them. */
  readonly terminal: readonly S[];
  /** True when `actor` may move a row `from → to`. */
  canTransition(from: S, to: S, actor?: A): boolean;
  /** The states from which `actor` may enter `to`, in declaration order: the `WHERE status IN (…)` of the guarded UPDATE. */
  sourcesOf(to: S, actor?: A): S[];
  isActive(status: S): boolean;
  isTerminal(status: S): boolean;
  /** Every legal edge of every actor, worker first. */
  edges(): Edge<S, A>[];
}

/**
 * Builds the state machine of one projection from its declaration (DC-3).
 * @throws Error when an edge names an undeclared state or actor: a table that cannot be trusted
 *   fails at module load, never at a write.
 */
export function defineStateMachine<S extends string, A extends string = never>(
  spec: StateMachineSpec<S, A>,
): StateMachine<S, typeof WORKER | A> {
  type Actor = typeof WORKER | A;
  const tables = new Map<Actor, Edges<S>>([[WORKER, spec.worker]]);
  for (const [actor, edges] of Object.entries(spec.actors ?? {}) as [A, Edges<S>][]) {
    if ((actor as string) === WORKER) throw new Error(`${spec.projection}: '${WORKER}' edges are declared in 'worker'`);
    tables.set(actor, edges);
  }
  const known = new Set<string>(spec.states);
  for (const [actor, edges] of tables) {
    for (const [from, targets] of Object.entries(edges) as [string, readonly string[]][]) {
      for (const s of [from, ...targets]) {
        if (!known.has(s)) throw new Error(`${spec.projection}: ${actor} edge ${from} → ${targets.join('|')} names an undeclared state ${s}`);
      }
    }
  }
  for (const s of spec.states) if (!spec.worker[s]) throw new Error(`${spec.projection}: state ${s} has no worker entry`);

  const edgesOf = (actor: Actor): Edges<S> => {
    const edges = tables.get(actor);
    if (!edges) throw new Error(`${spec.projection}: unknown actor ${actor}`);
    return edges;
  };
  const canTransition = (from: S, to: S, actor: Actor = WORKER): boolean => edgesOf(actor)[from]?.includes(to) ?? false;
  const isTerminal = (status: S): boolean => spec.worker[status].length === 0;
  const active = spec.states.filter((s) => !isTerminal(s));
  const terminal = spec.states.filter(isTerminal);
  const actors = [...tables.keys()];

  return {
    projection: spec.projection,
    states: spec.states,
    actors,
    active,
    terminal,
    canTransition,
    sourcesOf: (to, actor = WORKER) => spec.states.filter((from) => canTransition(from, to, actor)),
    isActive: (status) => !isTerminal(status),
    isTerminal,
    edges: () => actors.flatMap((actor) => spec.states.flatMap((from) => (edgesOf(actor)[from] ?? []).map((to) => ({ from, to, actor })))),
  };
}
