/**
 * DC-1/SAN-4 with an ambiguous workflow start: the API's Temporal client reaches the test server
 * through a fault proxy that swallows the server's answers, so the start ends at the client's
 * deadline (DEADLINE_EXCEEDED) without the API knowing whether the server took it. Describing the
 * workflow ID settles it:
 * - the server took the start → the create answers as usual (202) and its one run goes on;
 * - the server never got it → the request is undone: 503 WORKFLOW_START_UNAVAILABLE with
 *   Retry-After, no run, no row, no Idempotency-Key record; the same request then succeeds;
 * - describing fails too → 503 WORKFLOW_START_UNDECIDED with Retry-After and the rows kept (their
 *   start is the reconciler's), never a 500.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { jobWorkflowId } from '../../../src/core/contracts';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { startFaultyApi, type FaultyApi, type GrpcFaultProxy } from '../../support/grpc-fault-proxy';
import { startStack, waitForJob, type Stack } from '../../support/stack';
import { testObjectStoreEnv } from '../../support/object-store';

/** The proxied client's call deadline: short, so a swallowed call ends soon. */
const CALL_TIMEOUT_MS = 3_000;

let stack: Stack;
let faultyApi: FaultyApi;
let proxy: GrpcFaultProxy;
let faulty: FastifyInstance;

beforeAll(async () => {
  stack = await startStack({ aiRunsWorker: false, env: testObjectStoreEnv() });
  faultyApi = await startFaultyApi(stack, { callTimeoutMs: CALL_TIMEOUT_MS });
  ({ proxy, app: faulty } = faultyApi);
}, 120_000);
afterEach(() => proxy?.forward());
afterAll(async () => {
  await faultyApi?.close();
  await stack?.stop();
});

const json = (auth: { authorization: string }) => ({ ...auth, 'content-type': 'application/json' });
const scrapCreate = (auth: { authorization: string }) => ({
  method: 'POST' as const,
  url: '/scraps',
  headers: json(auth),
  payload: { content: `# Covering indexes ${randomUUID()}\n\nA covering index holds every column a query reads.` },
});

function expectProblem(res: LightMyRequestResponse, code: string): void {
  expect({ status: res.statusCode, type: res.headers['content-type'], code: (res.json() as { code?: string }).code }).toEqual({
    status: 503,
    type: expect.stringContaining('application/problem+json'),
    code,
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

/** Runs of `workflowId`, open or closed, as the server's visibility lists them. */
async function runsOf(workflowId: string): Promise<number> {
  return (await stack.client.workflow.count(`WorkflowId = "${workflowId}"`)).count;
}

it('a start the server took although the client saw its deadline answers 202, and its one run completes', async () => {
  const user = await stack.newUser();
  const cancels = proxy.cancels;
  proxy.swallow({ reachServer: true, untilCancel: true });
  const res = await faulty.inject(scrapCreate(user.auth));
  expect(proxy.cancels).toBe(cancels + 1); // the start did end at the client's deadline
  expect({ status: res.statusCode, body: res.statusCode === 202 ? undefined : res.body }).toEqual({ status: 202, body: undefined });
  const { scrapId, analysisJobId } = res.json() as { scrapId: string; analysisJobId: string };
  expect(await waitForJob(stack, analysisJobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
  expect(await runsOf(jobWorkflowId('CARD_ANALYSIS', scrapId))).toBe(1);
}, 120_000);

it('a start the server never got is undone: 503 WORKFLOW_START_UNAVAILABLE, nothing kept; the same request then succeeds', async () => {
  const user = await stack.newUser();
  const companyId = await ensureCompany(stack.db, `co-${randomUUID()}`);
  await setMember(stack.db, companyId, user.userId, 'HR_MANAGER');
  const create = { method: 'POST' as const, url: '/api/v1/ai-runs', headers: { ...json(user.auth), 'idempotency-key': randomUUID() }, payload: { companyId, text: 'I need a certificate of employment by Monday' } };
  const rows = async () => ({
    aiRuns: await stack.db.aiRun.count({ where: { companyId } }),
    idempotencyRecords: await stack.db.idempotencyRecord.count({ where: { scopeId: companyId } }),
  });

  const cancels = proxy.cancels;
  proxy.swallow({ reachServer: false, untilCancel: true });
  expectProblem(await faulty.inject(create), 'WORKFLOW_START_UNAVAILABLE');
  expect(proxy.cancels).toBe(cancels + 1);
  expect(await rows()).toEqual({ aiRuns: 0, idempotencyRecords: 0 });

  const again = await stack.app.inject(create);
  expect(again.statusCode).toBe(202);
  const run = await stack.db.aiRun.findUniqueOrThrow({ where: { id: (again.json() as { aiRunId: string }).aiRunId } });
  expect(await rows()).toEqual({ aiRuns: 1, idempotencyRecords: 1 });
  expect((await stack.client.workflow.getHandle(run.workflowId).describe()).runId).toEqual(expect.any(String));
}, 120_000);

it('a start that describing cannot settle either answers 503 WORKFLOW_START_UNDECIDED and keeps the rows', async () => {
  const user = await stack.newUser();
  proxy.swallow({ reachServer: true, untilCancel: false });
  expectProblem(await faulty.inject(scrapCreate(user.auth)), 'WORKFLOW_START_UNDECIDED');
  proxy.forward();
  const scraps = await stack.db.scrap.findMany({ where: { userId: user.userId }, select: { id: true } });
  expect(scraps).toHaveLength(1);
  const job = await stack.db.asyncJob.findFirstOrThrow({ where: { userId: user.userId, targetId: scraps[0]!.id } });
  // The server took the start: the kept job's run goes on.
  expect(await waitForJob(stack, job.jobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
}, 120_000);
