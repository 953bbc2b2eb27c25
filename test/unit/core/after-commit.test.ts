/** startAfterCommit: the start's outcome, or `start-failed` with one warning naming the resource; never a throw. */
import { startAfterCommit, type WarnLog } from '../../../src/core/after-commit';

function testLog() {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  const log: WarnLog = { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) };
  return { log, warnings };
}

test('a start that succeeds returns its outcome and logs nothing', async () => {
  const { log, warnings } = testLog();
  expect(await startAfterCommit(log, { aiRunId: 'r1' }, async () => 'started')).toBe('started');
  expect(await startAfterCommit(log, { aiRunId: 'r1' }, async () => 'already-running')).toBe('already-running');
  expect(warnings).toEqual([]);
});

test('a start that fails is logged with the resource ids and the error, and reported as start-failed', async () => {
  const { log, warnings } = testLog();
  const err = new Error('Temporal unreachable');
  const outcome = await startAfterCommit(log, { jobId: 'j1', jobType: 'CARD_ANALYSIS' }, () => Promise.reject(err));
  expect(outcome).toBe('start-failed');
  expect(warnings).toEqual([{ obj: { err, jobId: 'j1', jobType: 'CARD_ANALYSIS' }, msg: 'workflow start failed; the reconciler will start it' }]);
});

test('a start that throws synchronously is caught too', async () => {
  const { log, warnings } = testLog();
  const start = (): Promise<'started'> => {
    throw new Error('no client');
  };
  await expect(startAfterCommit(log, { portalLinkJobId: 'p1' }, start)).resolves.toBe('start-failed');
  expect(warnings).toHaveLength(1);
});
