/** DC-3: the state-machine helper and the guarded-transition write, over a toy table. */
import { defineStateMachine } from '../../../src/core/state-machine';
import { guardedTransition, settleTransition, transitionGuard } from '../../../src/core/guarded-transition';
import { metricsRegistry } from '../../../src/telemetry/metrics';

const STATES = ['NEW', 'BUSY', 'DONE', 'LOST'] as const;
type S = (typeof STATES)[number];

const toy = defineStateMachine({
  projection: 'toy_rows',
  states: STATES,
  worker: { NEW: ['BUSY', 'LOST'], BUSY: ['BUSY', 'DONE', 'LOST'], DONE: [], LOST: [] },
  actors: { revive: { LOST: ['NEW'] }, audit: {} },
});

const rejected = async (to: string) => {
  const m = await metricsRegistry.getSingleMetric('projection_transitions_rejected_total')?.get();
  return m?.values.find((v) => v.labels.projection === 'toy_rows' && v.labels.to === to)?.value ?? 0;
};

/** A one-row store whose write honours the guard, as a guarded UPDATE does. */
function row(initial: S | null) {
  let status = initial;
  const seen: S[][] = [];
  return {
    get status() {
      return status;
    },
    seen,
    write: (to: S) => async (from: S[]) => {
      seen.push(from);
      if (status === null || !from.includes(status)) return { count: 0 };
      status = to;
      return { count: 1 };
    },
    read: async () => (status === null ? null : { status }),
  };
}

describe('defineStateMachine', () => {
  it('keeps the declared states and actors, the worker first', () => {
    expect(toy.projection).toBe('toy_rows');
    expect(toy.states).toEqual(STATES);
    expect(toy.actors).toEqual(['worker', 'revive', 'audit']);
  });

  it('derives active and terminal states from the worker edges', () => {
    expect(toy.active).toEqual(['NEW', 'BUSY']);
    expect(toy.terminal).toEqual(['DONE', 'LOST']);
    expect(STATES.filter(toy.isActive)).toEqual(['NEW', 'BUSY']);
    expect(STATES.filter(toy.isTerminal)).toEqual(['DONE', 'LOST']);
  });

  it('answers edges per actor, the worker by default', () => {
    expect(toy.canTransition('NEW', 'BUSY')).toBe(true);
    expect(toy.canTransition('NEW', 'BUSY', 'worker')).toBe(true);
    expect(toy.canTransition('NEW', 'BUSY', 'revive')).toBe(false);
    expect(toy.canTransition('LOST', 'NEW')).toBe(false);
    expect(toy.canTransition('LOST', 'NEW', 'revive')).toBe(true);
    expect(toy.canTransition('DONE', 'NEW', 'revive')).toBe(false);
    expect(toy.canTransition('BUSY', 'NEW', 'audit')).toBe(false);
  });

  it('lists the sources of a state in declaration order, per actor, self-edges included', () => {
    expect(toy.sourcesOf('BUSY')).toEqual(['NEW', 'BUSY']);
    expect(toy.sourcesOf('LOST')).toEqual(['NEW', 'BUSY']);
    expect(toy.sourcesOf('DONE')).toEqual(['BUSY']);
    expect(toy.sourcesOf('NEW')).toEqual([]);
    expect(toy.sourcesOf('NEW', 'revive')).toEqual(['LOST']);
  });

  it('lists every edge with its actor', () => {
    expect(toy.edges()).toEqual([
      { from: 'NEW', to: 'BUSY', actor: 'worker' },
      { from: 'NEW', to: 'LOST', actor: 'worker' },
      { from: 'BUSY', to: 'BUSY', actor: 'worker' },
      { from: 'BUSY', to: 'DONE', actor: 'worker' },
      { from: 'BUSY', to: 'LOST', actor: 'worker' },
      { from: 'LOST', to: 'NEW', actor: 'revive' },
    ]);
  });

  it('refuses a table that names an undeclared state, or a second worker table', () => {
    expect(() => defineStateMachine({ projection: 'bad', states: ['A', 'B'], worker: { A: ['C' as 'B'], B: [] } })).toThrow(/undeclared state C/);
    expect(() => defineStateMachine({ projection: 'bad', states: ['A'], worker: { A: [] }, actors: { x: { Z: ['A'] } as never } })).toThrow(/undeclared state Z/);
    expect(() => defineStateMachine({ projection: 'bad', states: ['A', 'B'], worker: { A: ['B'] } as never })).toThrow(/state B has no worker entry/);
    expect(() => defineStateMachine({ projection: 'bad', states: ['A'], worker: { A: [] }, actors: { worker: {} } as never })).toThrow(/'worker' edges/);
  });
});

describe('transitionGuard', () => {
  it('is the table\'s sources for the actor', () => {
    expect(transitionGuard(toy, 'LOST')).toEqual(['NEW', 'BUSY']);
    expect(transitionGuard(toy, 'NEW', { actor: 'revive' })).toEqual(['LOST']);
  });

  it('narrows to `from` when every state in it is a legal source', () => {
    expect(transitionGuard(toy, 'LOST', { from: ['BUSY'] })).toEqual(['BUSY']);
  });

  it('refuses an illegal edge or a state nothing enters: a programming error', () => {
    expect(() => transitionGuard(toy, 'DONE', { from: ['NEW'] })).toThrow(/toy_rows: NEW → DONE is not an edge of worker/);
    expect(() => transitionGuard(toy, 'NEW')).toThrow(/toy_rows: no state → NEW/);
    expect(() => transitionGuard(toy, 'BUSY', { actor: 'audit' })).toThrow(/not an edge of audit/);
  });
});

describe('guardedTransition', () => {
  it('moves a row along a legal edge with the table\'s guard, counting nothing', async () => {
    const r = row('NEW');
    const before = await rejected('BUSY');
    expect(await guardedTransition(toy, { to: 'BUSY', write: r.write('BUSY'), read: r.read })).toEqual({ changed: true, status: 'BUSY' });
    expect(r.seen).toEqual([['NEW', 'BUSY']]);
    expect(r.status).toBe('BUSY');
    expect(await rejected('BUSY')).toBe(before);
  });

  it('a late or duplicate transition changes nothing, reports the row now and is counted', async () => {
    const r = row('DONE');
    const before = await rejected('LOST');
    expect(await guardedTransition(toy, { to: 'LOST', write: r.write('LOST'), read: r.read })).toEqual({ changed: false, status: 'DONE' });
    expect(r.status).toBe('DONE');
    expect(await rejected('LOST')).toBe(before + 1);
  });

  it('a missing row reports null', async () => {
    const r = row(null);
    expect(await guardedTransition(toy, { to: 'DONE', write: r.write('DONE'), read: r.read })).toEqual({ changed: false, status: null });
  });

  it('takes another actor\'s edge only when asked', async () => {
    const r = row('LOST');
    expect(await guardedTransition(toy, { to: 'NEW', actor: 'revive', write: r.write('NEW'), read: r.read })).toEqual({ changed: true, status: 'NEW' });
    await expect(guardedTransition(toy, { to: 'NEW', write: r.write('NEW'), read: r.read })).rejects.toThrow(/no state → NEW/);
  });

  it('a narrowed guard rejects a state the table allows but the write does not', async () => {
    const r = row('NEW');
    expect(await guardedTransition(toy, { to: 'LOST', from: ['BUSY'], write: r.write('LOST'), read: r.read })).toEqual({ changed: false, status: 'NEW' });
    expect(r.seen).toEqual([['BUSY']]);
  });

  it('reads a raw row count and returned rows as what the write moved', async () => {
    const read = async () => ({ status: 'BUSY' as const });
    expect(await guardedTransition(toy, { to: 'DONE', write: async () => 1, read })).toEqual({ changed: true, status: 'DONE' });
    expect(await guardedTransition(toy, { to: 'DONE', write: async () => 0, read })).toEqual({ changed: false, status: 'BUSY' });
    expect(await guardedTransition(toy, { to: 'DONE', write: async () => [{ id: 1 }], read })).toEqual({ changed: true, status: 'DONE' });
    expect(await guardedTransition(toy, { to: 'DONE', write: async () => [], read })).toEqual({ changed: false, status: 'BUSY' });
  });
});

describe('settleTransition', () => {
  it('reports a write made elsewhere without reading when it moved the row', async () => {
    const read = jest.fn(async () => ({ status: 'NEW' as const }));
    expect(await settleTransition(toy, 'DONE', true, read)).toEqual({ changed: true, status: 'DONE' });
    expect(read).not.toHaveBeenCalled();
    const before = await rejected('DONE');
    expect(await settleTransition(toy, 'DONE', false, read)).toEqual({ changed: false, status: 'NEW' });
    expect(await rejected('DONE')).toBe(before + 1);
  });
});
