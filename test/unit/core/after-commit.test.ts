/**
 * startAfterCommit: the start's outcome, or `start-failed` with one warning naming the resource;
 * never a throw. startOrUndo: the same, except that Temporal being unavailable for the first start
 * undoes the request and answers 503.
 */
import { ServiceError, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { isTemporalUnavailable, startAfterCommit, startOrUndo, type WarnLog } from '../../../src/core/after-commit';
import { DomainError } from '../../../src/core/domain-error';
import { startFailureKind, WorkflowNotStartedError, WorkflowStartUndecidedError } from '../../../src/core/workflow-start';

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

/** What the Temporal client throws when the frontend answers (or its connection gives) gRPC `code`. */
function grpcFailure(code: number, details: string): Error {
  const grpc = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to start Workflow', { cause: grpc });
}
const UNAVAILABLE = () => grpcFailure(14, 'No connection established');

test('isTemporalUnavailable: gRPC UNAVAILABLE (bare or wrapped by the client); a deadline may have started the run', () => {
  expect(isTemporalUnavailable(UNAVAILABLE())).toBe(true);
  expect(isTemporalUnavailable((UNAVAILABLE() as { cause?: unknown }).cause)).toBe(true);
  expect(isTemporalUnavailable(grpcFailure(4, 'deadline exceeded'))).toBe(false);
  expect(isTemporalUnavailable(grpcFailure(13, 'internal'))).toBe(false);
  expect(isTemporalUnavailable(new Error('14 UNAVAILABLE'))).toBe(false);
  expect(isTemporalUnavailable(undefined)).toBe(false);
});

test('startFailureKind: refused → unavailable; a deadline, cancel or dropped connection → ambiguous; other answers → rejected', () => {
  expect(startFailureKind(UNAVAILABLE())).toBe('unavailable');
  expect(startFailureKind(grpcFailure(8, 'namespace rate limit exceeded'))).toBe('unavailable');
  expect(startFailureKind(new WorkflowNotStartedError('wf', grpcFailure(4, 'deadline exceeded')))).toBe('unavailable');
  expect(startFailureKind(grpcFailure(4, 'Deadline exceeded'))).toBe('ambiguous');
  expect(startFailureKind(grpcFailure(1, 'Cancelled on client'))).toBe('ambiguous');
  expect(startFailureKind(grpcFailure(14, 'Connection dropped'))).toBe('ambiguous');
  expect(startFailureKind(grpcFailure(14, 'read ECONNRESET'))).toBe('ambiguous');
  expect(startFailureKind(new WorkflowStartUndecidedError('wf', grpcFailure(4, 'deadline exceeded')))).toBe('ambiguous');
  expect(startFailureKind(new WorkflowExecutionAlreadyStartedError('started', 'wf', 'T'))).toBe('already-started');
  expect(startFailureKind(grpcFailure(3, 'invalid argument'))).toBe('rejected');
  expect(startFailureKind(new Error('no workflow registered'))).toBe('rejected');
});

test('startOrUndo: an undecided first start keeps everything and throws 503 WORKFLOW_START_UNDECIDED with Retry-After', async () => {
  const { log } = testLog();
  const undo = jest.fn(async () => undefined);
  const err = await startOrUndo(log, [{ ids: { jobId: 'a' }, start: () => Promise.reject(new WorkflowStartUndecidedError('wf', grpcFailure(4, 'deadline exceeded'))) }], undo).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'WORKFLOW_START_UNDECIDED', headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
  expect(undo).not.toHaveBeenCalled();
});

describe('startOrUndo', () => {
  test('starts every resource in order and undoes nothing when they start', async () => {
    const { log, warnings } = testLog();
    const undo = jest.fn(async () => undefined);
    const order: string[] = [];
    const outcomes = await startOrUndo(log, ['a', 'b'].map((id) => ({ ids: { jobId: id }, start: async () => (order.push(id), 'started' as const) })), undo);
    expect({ outcomes, order, undone: undo.mock.calls.length, warnings }).toEqual({ outcomes: ['started', 'started'], order: ['a', 'b'], undone: 0, warnings: [] });
  });

  test('Temporal unavailable for the first start: undoes the request and throws 503 WORKFLOW_START_UNAVAILABLE with Retry-After', async () => {
    const { log, warnings } = testLog();
    const undo = jest.fn(async () => undefined);
    const second = jest.fn(async () => 'started' as const);
    const err = await startOrUndo(log, [{ ids: { jobId: 'a' }, start: () => Promise.reject(UNAVAILABLE()) }, { ids: { jobId: 'b' }, start: second }], undo).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE', headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    expect(undo).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
    expect(warnings).toEqual([{ obj: expect.objectContaining({ jobId: 'a' }), msg: expect.stringContaining('the request was undone') }]);
  });

  test('a failed undo is logged and still answers 503 (the rows stay for the reconciler)', async () => {
    const { log, warnings } = testLog();
    await expect(startOrUndo(log, [{ ids: { jobId: 'a' }, start: () => Promise.reject(UNAVAILABLE()) }], () => Promise.reject(new Error('database down')))).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE' });
    expect(warnings).toEqual([{ obj: expect.objectContaining({ jobId: 'a', undoErr: expect.any(Error) }), msg: expect.stringContaining('the undo failed') }]);
  });

  test('a rejected start, or a later start failing, is left to the reconciler: no undo, no throw', async () => {
    const { log, warnings } = testLog();
    const undo = jest.fn(async () => undefined);
    expect(await startOrUndo(log, [{ ids: { jobId: 'a' }, start: () => Promise.reject(grpcFailure(3, 'invalid argument')) }], undo)).toEqual(['start-failed']);
    expect(await startOrUndo(log, [{ ids: { jobId: 'b' }, start: async () => 'started' }, { ids: { jobId: 'c' }, start: () => Promise.reject(UNAVAILABLE()) }], undo)).toEqual(['started', 'start-failed']);
    expect(undo).not.toHaveBeenCalled();
    expect(warnings.map((w) => w.msg)).toEqual(['workflow start failed; the reconciler will start it', 'workflow start failed; the reconciler will start it']);
  });

  test('without an undo (a replay of an earlier request) only the 503 is thrown', async () => {
    const { log } = testLog();
    await expect(startOrUndo(log, [{ ids: { jobId: 'a' }, start: () => Promise.reject(UNAVAILABLE()) }])).rejects.toMatchObject({ code: 'WORKFLOW_START_UNAVAILABLE' });
  });
});
