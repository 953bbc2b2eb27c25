/**
 * AR-5 `POST /api/v1/ai-runs/{aiRunId}/candidate-decisions` through the API on the real PostgreSQL:
 * every rule, the version check (nothing applied when stale, checked in the rows), idempotent and
 * concurrent decisions (one Task), roles and cross-company isolation, and the Task routes. Runs,
 * attempts and candidates are seeded with Prisma (no workflow involved).
 */
import { randomUUID } from 'node:crypto';
import { aiRunEtag } from '../../../src/domain/ai-runs/etag';
import { seedCompany, seedRun } from '../../support/ai-runs-seed';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

jest.setTimeout(120_000);

let stack: Stack;
let a: Awaited<ReturnType<typeof seedCompany>>;
let b: Awaited<ReturnType<typeof seedCompany>>;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false });
  a = await seedCompany(stack);
  b = await seedCompany(stack, ['HR_MANAGER']);
});
afterAll(async () => stack?.stop());

type User = Awaited<ReturnType<Stack['newUser']>>;
type Body = { decisions: { candidateId: string; decision: 'ADOPT' | 'DISCARD' }[]; version?: number };

function decide(user: User, runId: string, body: Body, headers: Record<string, string> = {}) {
  return stack.app.inject({ method: 'POST', url: `/api/v1/ai-runs/${runId}/candidate-decisions`, headers: { ...user.auth, ...headers }, payload: body });
}
const ifMatch = (runId: string, version: number) => ({ 'if-match': aiRunEtag(runId, version) });
const adopt = (candidateId: string) => ({ candidateId, decision: 'ADOPT' as const });
const discard = (candidateId: string) => ({ candidateId, decision: 'DISCARD' as const });

/** A SUCCEEDED run of company A (version 3) with `n` complete candidates and one missing a slot. */
async function runWith(n = 2, extra: Parameters<typeof seedRun>[3] = {}) {
  const complete = Array.from({ length: n }, () => ({}));
  return seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { attempts: [[...complete, { missingSlots: ['dueDate'], slots: { purpose: 'visa' } }]], ...extra });
}

/** What the database holds for a run: its version, decisions, Tasks and candidate statuses. */
async function state(runId: string) {
  const [run, decisions, tasks, candidates] = await Promise.all([
    stack.db.aiRun.findUniqueOrThrow({ where: { id: runId }, select: { version: true } }),
    stack.db.aiCandidateDecision.findMany({ where: { runId } }),
    stack.db.task.findMany({ where: { runId } }),
    stack.db.aiCandidate.findMany({ where: { runId }, select: { id: true, status: true }, orderBy: { ordinal: 'asc' } }),
  ]);
  return { version: run.version, decisions: decisions.length, tasks: tasks.length, statuses: candidates.map((c) => c.status) };
}

const untouched = (n: number) => ({ version: 3, decisions: 0, tasks: 0, statuses: Array(n).fill('PROPOSED') });

function expectProblem(res: Awaited<ReturnType<typeof decide>>, status: number, code: string) {
  expect([res.statusCode, res.json().code]).toEqual([status, code]);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

describe('applying decisions', () => {
  it('ADOPT and DISCARD with If-Match: one Task per adopted candidate (READY_FOR_REVIEW / NEEDS_INFO), version + 1, new ETag', async () => {
    const { runId, candidates: [[c1, c2, c3]] } = await runWith(2);
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), discard(c2!), adopt(c3!)] }, ifMatch(runId, 3));
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(aiRunEtag(runId, 4));
    const body = res.json();
    expect(body).toMatchObject({ aiRunId: runId, version: 4, etag: aiRunEtag(runId, 4), applied: 3 });
    expect(body.decisions.map((d: { candidateId: string; decision: string; runVersion: number; decidedBy: string }) => [d.candidateId, d.decision, d.runVersion, d.decidedBy])).toEqual([
      [c1, 'ADOPT', 3, a.members.HR_MANAGER.userId],
      [c2, 'DISCARD', 3, a.members.HR_MANAGER.userId],
      [c3, 'ADOPT', 3, a.members.HR_MANAGER.userId],
    ]);
    expect(body.decisions[1].taskId).toBeNull();
    expect(body.tasks.map((t: { candidateId: string; status: string; missingSlots: string[] }) => [t.candidateId, t.status, t.missingSlots])).toEqual([
      [c1, 'READY_FOR_REVIEW', []],
      [c3, 'NEEDS_INFO', ['dueDate']],
    ]);
    expect(body.decisions[0].taskId).toBe(body.tasks[0].taskId);
    expect(body.tasks[0]).toMatchObject({ companyId: a.companyId, aiRunId: runId, taskType: 'EMPLOYMENT_CERTIFICATE', slots: { purpose: 'visa application', dueDate: '2026-12-04' }, createdBy: a.members.HR_MANAGER.userId });
    expect(await state(runId)).toEqual({ version: 4, decisions: 3, tasks: 2, statuses: ['ADOPTED', 'DISCARDED', 'ADOPTED'] });

    const task = await stack.app.inject({ method: 'GET', url: `/api/v1/tasks/${body.tasks[1].taskId}`, headers: a.members.VIEWER.auth });
    expect(task.statusCode).toBe(200);
    expect(task.json()).toEqual(body.tasks[1]);
  });

  it('an explicit body version works the same, for an OWNER too; the next decision needs the new version', async () => {
    const { runId, candidates: [[c1, c2]] } = await runWith(2);
    const first = await decide(a.members.OWNER, runId, { decisions: [adopt(c1!)], version: 3 });
    expect([first.statusCode, first.json().version, first.headers.etag]).toEqual([200, 4, aiRunEtag(runId, 4)]);
    expectProblem(await decide(a.members.OWNER, runId, { decisions: [adopt(c2!)], version: 3 }), 409, 'AI_RUN_VERSION_CONFLICT');
    const second = await decide(a.members.OWNER, runId, { decisions: [adopt(c2!)], version: 4 });
    expect([second.statusCode, second.json().version]).toEqual([200, 5]);
  });
});

describe('the version check: stale → nothing applied', () => {
  it("the ETag GET /api/v1/ai-runs/{id} sends is the If-Match decisions accept; afterwards GET sends the new one", async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const read = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${runId}`, headers: a.members.HR_MANAGER.auth });
    expect([read.statusCode, read.headers.etag]).toEqual([200, aiRunEtag(runId, 3)]);
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, { 'if-match': String(read.headers.etag) });
    expect(res.statusCode).toBe(200);
    const again = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${runId}`, headers: a.members.HR_MANAGER.auth });
    expect(again.headers.etag).toBe(res.headers.etag);
  });

  it('a stale If-Match → 412 PRECONDITION_FAILED with the current ETag; the rows are untouched', async () => {
    const { runId, candidates: [[c1, c2]] } = await runWith(2);
    await stack.db.aiRun.update({ where: { id: runId }, data: { version: 4 } }); // someone else changed it
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), discard(c2!)] }, ifMatch(runId, 3));
    expectProblem(res, 412, 'PRECONDITION_FAILED');
    expect(res.headers.etag).toBe(aiRunEtag(runId, 4));
    expect(await state(runId)).toEqual({ ...untouched(3), version: 4 });
  });

  it('a stale body version → 409 AI_RUN_VERSION_CONFLICT, rows untouched', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)], version: 2 });
    expectProblem(res, 409, 'AI_RUN_VERSION_CONFLICT');
    expect(res.json().detail).toMatch(/current version is 3/);
    expect(await state(runId)).toEqual(untouched(2));
  });

  it('a weak ETag, another run\'s ETag or a future version never match (412); a list with the current one does', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const other = randomUUID();
    for (const header of [`W/${aiRunEtag(runId, 3)}`, aiRunEtag(other, 3), aiRunEtag(runId, 4)]) {
      expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, { 'if-match': header }), 412, 'PRECONDITION_FAILED');
    }
    expect(await state(runId)).toEqual(untouched(2));
    const ok = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, { 'if-match': `${aiRunEtag(other, 1)}, ${aiRunEtag(runId, 3)}` });
    expect(ok.statusCode).toBe(200);
  });

  it('no version at all (or If-Match: *) → 428 PRECONDITION_REQUIRED; a malformed If-Match or a disagreeing pair → 400', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }), 428, 'PRECONDITION_REQUIRED');
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, { 'if-match': '*' }), 428, 'PRECONDITION_REQUIRED');
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, { 'if-match': 'v3' }), 400, 'VALIDATION_FAILED');
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)], version: 2 }, ifMatch(runId, 3)), 400, 'CONFLICTING_PRECONDITIONS');
    expect(await state(runId)).toEqual(untouched(2));
  });
});

describe('idempotency and concurrency (AR-5: never a second Task)', () => {
  it('the same decision again → 200, the same decision and Task, version unchanged, even with the old version', async () => {
    const { runId, candidates: [[c1, c2]] } = await runWith(2);
    const first = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), discard(c2!)] }, ifMatch(runId, 3));
    expect(first.statusCode).toBe(200);
    for (const again of [
      await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), discard(c2!)] }, ifMatch(runId, 3)),
      await decide(a.members.OWNER, runId, { decisions: [adopt(c1!)], version: 4 }),
    ]) {
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ version: 4, applied: 0 });
      expect(again.json().decisions[0]).toEqual(first.json().decisions[0]);
      expect(again.json().tasks).toEqual(first.json().tasks);
    }
    expect(await state(runId)).toEqual({ version: 4, decisions: 2, tasks: 1, statuses: ['ADOPTED', 'DISCARDED', 'PROPOSED'] });
  });

  it('20 concurrent identical ADOPTs → all 200 with one and the same Task; one decision row; version bumped once', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3))));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const taskIds = new Set(answers.map((r) => r.json().tasks[0].taskId));
    expect(taskIds.size).toBe(1);
    expect(answers.filter((r) => r.json().applied === 1)).toHaveLength(1);
    expect(await state(runId)).toEqual({ version: 4, decisions: 1, tasks: 1, statuses: ['ADOPTED', 'PROPOSED'] });
    expect(await stack.db.task.findMany({ where: { candidateId: c1! }, select: { id: true } })).toEqual([{ id: [...taskIds][0] }]);
  });

  it('10 ADOPTs racing 10 DISCARDs of one candidate: exactly one decision wins, the losers are 412 and change nothing', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => decide(a.members.HR_MANAGER, runId, { decisions: [i % 2 ? discard(c1!) : adopt(c1!)] }, ifMatch(runId, 3)).then((r) => ({ i, r }))),
    );
    const decisions = await stack.db.aiCandidateDecision.findMany({ where: { candidateId: c1! } });
    expect(decisions).toHaveLength(1);
    const won = decisions[0]!.decision;
    for (const { i, r } of answers) {
      const mine = i % 2 ? 'DISCARD' : 'ADOPT';
      expect([mine, r.statusCode]).toEqual([mine, mine === won ? 200 : 412]);
    }
    expect(await state(runId)).toEqual({ version: 4, decisions: 1, tasks: won === 'ADOPT' ? 1 : 0, statuses: [won === 'ADOPT' ? 'ADOPTED' : 'DISCARDED', 'PROPOSED'] });
  });
  it('a writer that bypassed the run lock takes the unique index first: the request reads its rows (P2002 → the winner)', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written!: (taskId: string) => void;
    const winnerTask = new Promise<string>((resolve) => (written = resolve));
    const bypass = stack.db.$transaction(async (tx) => {
      await tx.aiCandidateDecision.create({ data: { candidateId: c1!, runId, decision: 'ADOPT', actorUserId: a.members.OWNER.userId, runVersion: 3 } });
      const task = await tx.task.create({
        data: { companyId: a.companyId, runId, candidateId: c1!, taskType: 'EMPLOYMENT_CERTIFICATE', status: 'READY_FOR_REVIEW', slots: {}, missingSlots: [], createdBy: a.members.OWNER.userId },
      });
      written(task.id);
      await released;
    }, { timeout: 60_000 });
    const taskId = await winnerTask;
    const pending = decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3));
    // The request holds the run lock and waits on the unique index behind the uncommitted winner.
    await pollUntil(
      async () => (await stack.db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)[0]!.n,
      (n) => n > 0,
      { describe: 'the decision insert to wait behind the uncommitted winner' },
    );
    release();
    await bypass;
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ applied: 0, version: 3, decisions: [{ candidateId: c1, decision: 'ADOPT', decidedBy: a.members.OWNER.userId, taskId }] });
    expect(await stack.db.task.count({ where: { candidateId: c1! } })).toBe(1);
  });
});

describe('business rules → 422, all or nothing', () => {
  it('DISCARD then ADOPT → 422 CANDIDATE_ALREADY_DISCARDED; ADOPT then DISCARD → 422 CANDIDATE_ALREADY_ADOPTED', async () => {
    const { runId, candidates: [[c1, c2]] } = await runWith(2);
    expect((await decide(a.members.HR_MANAGER, runId, { decisions: [discard(c1!), adopt(c2!)] }, ifMatch(runId, 3))).statusCode).toBe(200);
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 4)), 422, 'CANDIDATE_ALREADY_DISCARDED');
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [discard(c2!)] }, ifMatch(runId, 4)), 422, 'CANDIDATE_ALREADY_ADOPTED');
    expect(await state(runId)).toEqual({ version: 4, decisions: 2, tasks: 1, statuses: ['DISCARDED', 'ADOPTED', 'PROPOSED'] });
  });

  it('an AR-9 blocked candidate → 422 CANDIDATE_BLOCKED and the valid decision beside it is not applied; discarding it works', async () => {
    const { runId, candidates: [[ok, blocked]] } = await seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { attempts: [[{}, { blocked: true }]] });
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(ok!), adopt(blocked!)] }, ifMatch(runId, 3));
    expectProblem(res, 422, 'CANDIDATE_BLOCKED');
    expect(res.json().detail).toContain(blocked);
    expect(await state(runId)).toEqual(untouched(2));
    expect((await decide(a.members.HR_MANAGER, runId, { decisions: [discard(blocked!)] }, ifMatch(runId, 3))).statusCode).toBe(200);
    expect(await state(runId)).toEqual({ version: 4, decisions: 1, tasks: 0, statuses: ['PROPOSED', 'DISCARDED'] });
  });

  it('a candidate of a superseded attempt → 422 CANDIDATE_SUPERSEDED; the latest attempt\'s candidates can be decided', async () => {
    const { runId, candidates: [[old], [latest]] } = await seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { attempts: [[{}], [{}]] });
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(old!)] }, ifMatch(runId, 3)), 422, 'CANDIDATE_SUPERSEDED');
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [discard(old!)] }, ifMatch(runId, 3)), 422, 'CANDIDATE_SUPERSEDED');
    expect((await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(latest!)] }, ifMatch(runId, 3))).statusCode).toBe(200);
  });

  it.each(['QUEUED', 'RUNNING', 'RETRYING', 'FAILED'] as const)('a %s run → 422 AI_RUN_NOT_SUCCEEDED, nothing applied', async (status) => {
    const { runId, candidates: [[c1]] } = await seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { status, attempts: [[{}]] });
    expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3)), 422, 'AI_RUN_NOT_SUCCEEDED');
    expect(await state(runId)).toEqual(untouched(1));
  });

  it('a candidate of another run, or no candidate at all → 422 CANDIDATE_NOT_IN_RUN, nothing applied', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const other = await runWith(1);
    for (const foreign of [other.candidates[0]![0]!, randomUUID()]) {
      expectProblem(await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), adopt(foreign)] }, ifMatch(runId, 3)), 422, 'CANDIDATE_NOT_IN_RUN');
    }
    expect(await state(runId)).toEqual(untouched(2));
    expect(await state(other.runId)).toEqual(untouched(2));
  });

  it('the same candidate twice in one request → 400 naming the repeat', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const res = await decide(a.members.HR_MANAGER, runId, { decisions: [adopt(c1!), discard(c1!.toUpperCase())] }, ifMatch(runId, 3));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.json().errors).toEqual([{ path: 'body.decisions.1.candidateId', message: 'duplicate candidateId (also at decisions.0)' }]);
    expect(await state(runId)).toEqual(untouched(2));
  });

  it('an empty list, an unknown decision or an unknown field → 400', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    for (const payload of [{ decisions: [] }, { decisions: [{ candidateId: c1, decision: 'APPROVE' }] }, { decisions: [{ ...adopt(c1!), note: 'x' }] }]) {
      expectProblem(await decide(a.members.HR_MANAGER, runId, payload as Body, ifMatch(runId, 3)), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('roles and tenancy', () => {
  it('a VIEWER → 403 FORBIDDEN; nothing applied', async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    expectProblem(await decide(a.members.VIEWER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3)), 403, 'FORBIDDEN');
    expect(await state(runId)).toEqual(untouched(2));
  });

  it("another company's HR manager, a user of no company and an unknown run → 404 NOT_FOUND alike", async () => {
    const { runId, candidates: [[c1]] } = await runWith(1);
    const nobody = await stack.newUser();
    const answers = [
      await decide(b.members.HR_MANAGER, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3)),
      await decide(nobody, runId, { decisions: [adopt(c1!)] }, ifMatch(runId, 3)),
      await decide(a.members.HR_MANAGER, randomUUID(), { decisions: [adopt(c1!)] }, ifMatch(runId, 3)),
    ];
    for (const r of answers) expectProblem(r, 404, 'NOT_FOUND');
    expect(new Set(answers.map((r) => r.json().detail)).size).toBe(1);
    expect(await state(runId)).toEqual(untouched(2));
  });

  it("another company's candidates cannot be adopted into one's own run; its Tasks stay invisible", async () => {
    const mine = await seedRun(stack, b.companyId, b.members.HR_MANAGER.userId, { attempts: [[{}]] });
    const theirs = await runWith(1);
    expectProblem(await decide(b.members.HR_MANAGER, mine.runId, { decisions: [adopt(theirs.candidates[0]![0]!)] }, ifMatch(mine.runId, 3)), 422, 'CANDIDATE_NOT_IN_RUN');
    const adopted = await decide(a.members.HR_MANAGER, theirs.runId, { decisions: [adopt(theirs.candidates[0]![0]!)] }, ifMatch(theirs.runId, 3));
    const taskId = adopted.json().tasks[0].taskId as string;
    expectProblem(await stack.app.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers: b.members.HR_MANAGER.auth }), 404, 'NOT_FOUND');
    expectProblem(await stack.app.inject({ method: 'GET', url: `/api/v1/companies/${a.companyId}/tasks`, headers: b.members.HR_MANAGER.auth }), 404, 'NOT_FOUND');
    const own = await stack.app.inject({ method: 'GET', url: `/api/v1/companies/${b.companyId}/tasks`, headers: b.members.HR_MANAGER.auth });
    expect(own.json().items.map((t: { taskId: string }) => t.taskId)).not.toContain(taskId);
  });
});

describe('GET /api/v1/companies/{companyId}/tasks', () => {
  it('pages newest first without duplicates or gaps, filters by status, and refuses a bad cursor', async () => {
    const c = await seedCompany(stack, ['HR_MANAGER', 'VIEWER']);
    const { runId, candidates: [ids] } = await seedRun(stack, c.companyId, c.members.HR_MANAGER.userId, {
      attempts: [Array.from({ length: 7 }, (_, i) => (i % 3 === 0 ? { missingSlots: ['dueDate'] } : {}))],
    });
    const res = await decide(c.members.HR_MANAGER, runId, { decisions: ids!.map(adopt) }, ifMatch(runId, 3));
    expect(res.json().tasks).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof decide>> = await stack.app.inject({ method: 'GET', url: `/api/v1/companies/${c.companyId}/tasks?limit=3${cursor ? `&cursor=${cursor}` : ''}`, headers: c.members.VIEWER.auth });
      expect(page.statusCode).toBe(200);
      seen.push(...page.json().items.map((t: { taskId: string }) => t.taskId));
      cursor = page.json().nextCursor;
    } while (cursor);
    const expected = (await stack.db.task.findMany({ where: { companyId: c.companyId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })).map((t) => t.id);
    expect(seen).toEqual(expected);
    const needsInfo = await stack.app.inject({ method: 'GET', url: `/api/v1/companies/${c.companyId}/tasks?status=NEEDS_INFO`, headers: c.members.VIEWER.auth });
    expect(needsInfo.json().items.map((t: { status: string }) => t.status)).toEqual(['NEEDS_INFO', 'NEEDS_INFO', 'NEEDS_INFO']);
    expectProblem(await stack.app.inject({ method: 'GET', url: `/api/v1/companies/${c.companyId}/tasks?cursor=nope`, headers: c.members.VIEWER.auth }), 400, 'INVALID_CURSOR');
  });
});

describe('OpenAPI (AR-10)', () => {
  it('the decisions route documents named examples for success, 409, 412, 422 and 428, errors as problem+json', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/v1/ai-runs/{aiRunId}/candidate-decisions'].post;
    expect(Object.keys(op.responses['200'].content['application/json'].examples)).toEqual(expect.arrayContaining(['adoptedAndDiscarded', 'needsInfoTask', 'repeated']));
    expect(op.responses['200'].headers).toHaveProperty('ETag');
    expect(op.responses['409'].headers).toHaveProperty('ETag');
    expect(op.responses['412'].headers).toHaveProperty('ETag');
    for (const [status, name] of [['409', 'staleVersion'], ['412', 'staleEtag'], ['422', 'discardedThenAdopt'], ['422', 'runNotSucceeded'], ['422', 'blocked'], ['428', 'noVersion']]) {
      const media = op.responses[status!].content['application/problem+json'];
      expect([status, media.schema.$ref]).toEqual([status, '#/components/schemas/Problem']);
      expect(media.examples[name!].value).toMatchObject({ status: Number(status), code: expect.any(String) });
    }
    expect(op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['header:if-match', 'path:aiRunId']));
    expect(Object.keys(op.requestBody.content['application/json'].examples)).toEqual(['adoptWithVersion', 'discardWithIfMatch']);
  });
});
