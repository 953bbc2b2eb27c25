/**
 * The core reconciler: one pass over a rule's lost items, an action counted per item, one item's
 * failure counted and logged without ending the pass, a heartbeat per item inside an activity,
 * the recovery-actions metric, and `limit` over a lazily read listing.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { countItem, countOf, newPassReport, reconcile, type PassLog, type ReconcileRule } from '../../../src/core/reconciler';
import { metricsRegistry } from '../../../src/telemetry/metrics';

type Action = 'started' | 'closed' | 'error';

function testLog() {
  const lines: { level: 'info' | 'warn'; message: string; meta?: Record<string, unknown> }[] = [];
  const log: PassLog = {
    info: (message, meta) => lines.push({ level: 'info', message, ...(meta ? { meta } : {}) }),
    warn: (message, meta) => lines.push({ level: 'warn', message, ...(meta ? { meta } : {}) }),
  };
  return { log, lines };
}

async function actionCount(rule: string, action: string): Promise<number> {
  const m = await metricsRegistry.getSingleMetric('job_recovery_actions_total')?.get();
  return m?.values.find((v) => v.labels.rule === rule && v.labels.action === action)?.value ?? 0;
}

/** A rule over `items`: even numbers are started, odd ones closed, `bad` ones throw, 0 is left alone. */
function numbersRule(items: Iterable<number> | AsyncIterable<number>, bad: ReadonlySet<number> = new Set(), limit?: number): ReconcileRule<number, Action> & { settled: number[] } {
  const settled: number[] = [];
  return {
    settled,
    rule: `unit-${randomUUID()}`,
    lost: () => items,
    async settle(n) {
      settled.push(n);
      if (bad.has(n)) throw new Error(`item ${n} is broken`);
      if (n === 0) return null;
      return n % 2 === 0 ? 'started' : 'closed';
    },
    failed: 'error',
    ids: (n) => ({ itemId: n }),
    ...(limit !== undefined ? { limit } : {}),
  };
}

test('every lost item is settled once and its action counted; a null action is examined only', async () => {
  const { log, lines } = testLog();
  const rule = numbersRule([0, 1, 2, 3, 4]);
  const report = await reconcile(rule, log);
  expect(rule.settled).toEqual([0, 1, 2, 3, 4]);
  expect(report).toEqual({ rule: rule.rule, examined: 5, counts: { started: 2, closed: 2 } });
  expect(countOf(report, 'error')).toBe(0);
  expect(lines).toEqual([{ level: 'info', message: 'reconcile pass', meta: { rule: rule.rule, examined: 5, counts: { started: 2, closed: 2 } } }]);
  expect(await actionCount(rule.rule, 'started')).toBe(2);
  expect(await actionCount(rule.rule, 'closed')).toBe(2);
});

test('an item whose settling throws is counted as the failed action and logged; the pass goes on', async () => {
  const { log, lines } = testLog();
  const rule = numbersRule([1, 2, 3, 4], new Set([2, 3]));
  const report = await reconcile(rule, log);
  expect(rule.settled).toEqual([1, 2, 3, 4]);
  expect(report.counts).toEqual({ closed: 1, error: 2, started: 1 });
  const warnings = lines.filter((l) => l.level === 'warn');
  expect(warnings.map((w) => w.meta)).toEqual([
    { itemId: 2, error: 'Error: item 2 is broken' },
    { itemId: 3, error: 'Error: item 3 is broken' },
  ]);
  expect(await actionCount(rule.rule, 'error')).toBe(2);
});

test('a listing that fails ends the pass with its error (nothing was examined)', async () => {
  const { log } = testLog();
  const rule: ReconcileRule<number, Action> = { ...numbersRule([]), lost: () => Promise.reject(new Error('database unavailable')) };
  await expect(reconcile(rule, log)).rejects.toThrow('database unavailable');
});

test('limit stops reading a lazy listing; an empty pass logs nothing', async () => {
  let read = 0;
  async function* listing() {
    for (let n = 1; n <= 100; n++) {
      read = n;
      yield n;
    }
  }
  const { log, lines } = testLog();
  const report = await reconcile(numbersRule(listing(), new Set(), 3), log);
  expect(report.examined).toBe(3);
  expect(read).toBeLessThanOrEqual(4);

  const empty = testLog();
  expect((await reconcile(numbersRule([]), empty.log)).examined).toBe(0);
  expect(empty.lines).toEqual([]);
  expect(lines).toHaveLength(1);
});

test('inside an activity the pass heartbeats once per item', async () => {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => (beats += 1));
  let examined = 0;
  await env.run(async () => {
    examined = (await reconcile(numbersRule([1, 2, 3], new Set([2])), testLog().log)).examined;
  });
  expect(examined).toBe(3);
  expect(beats).toBe(3);
});

test('countItem counts an item with several actions, as the recovery rules record them', async () => {
  const report = newPassReport<'marked-failed' | 'requeued' | 'started'>(`unit-${randomUUID()}`);
  countItem(report, ['marked-failed', 'requeued', 'started']);
  countItem(report, ['marked-failed']);
  expect(report).toMatchObject({ examined: 2, counts: { 'marked-failed': 2, requeued: 1, started: 1 } });
  expect(await actionCount(report.rule, 'marked-failed')).toBe(2);
});
