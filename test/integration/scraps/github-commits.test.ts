/**
 * SAN-10 TIL_GITHUB_COMMIT end to end: the HTTP API, the real `jobs` and `github` workers on the
 * real Temporal dev server and PostgreSQL, and the real Octokit adapter against the local GitHub
 * emulator.
 */
import { Writable } from 'node:stream';
import { Worker } from '@temporalio/worker';
import { createLogger } from '../../../src/log';
import { jobWorkflowId } from '../../../src/core/contracts';
import { EMULATOR_HTML_BASE, startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';
import { startStack, waitForJob, workflowBundle, type Stack } from '../../support/stack';
import { testDataConverter } from '../../support/temporal';

type User = Awaited<ReturnType<Stack['newUser']>>;

let emulator: GithubEmulator;
let stack: Stack;
const logLines: string[] = [];

beforeAll(async () => {
  emulator = await startGithubEmulator();
  const sink = new Writable({ write(chunk: Buffer, _enc, cb) { logLines.push(chunk.toString('utf8')); cb(); } });
  stack = await startStack({ aiWorker: false, githubWorker: true, env: { GITHUB_API_URL: emulator.url }, logger: createLogger('trace', 'api', sink) });
});
afterAll(async () => {
  await stack?.stop();
  await emulator?.close();
});

let seq = 0;
/** A daily summary seeded directly (TIL generation is another job): finished unless `generated` is false. */
async function seedSummary(user: User, o: { title?: string; markdown?: string; generated?: boolean; date?: string } = {}) {
  seq += 1;
  const date = o.date ?? `2026-11-${String(seq).padStart(2, '0')}`;
  const generated = o.generated ?? true;
  const row = await stack.db.dailySummary.create({
    data: {
      userId: user.userId,
      targetDate: new Date(`${date}T00:00:00Z`),
      title: generated ? (o.title ?? 'Hello World') : null,
      tilMarkdown: generated ? (o.markdown ?? `# ${o.title ?? 'Hello World'}\n\nLearned thing #${seq}.\n`) : null,
      generatedAt: generated ? new Date() : null,
    },
  });
  return { id: row.id, date };
}

let repoSeq = 0;
/** A GitHub user with its own repository, linked through the API; returns the token and repo. */
async function linkGithub(user: User, o: { directory?: string } = {}) {
  repoSeq += 1;
  const login = `octo${repoSeq}`;
  const token = emulator.addUser(login);
  const repo = `til-${repoSeq}`;
  emulator.addRepo(login, repo);
  const a = await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } });
  expect(a.statusCode).toBe(200);
  const r = await stack.app.inject({ method: 'PUT', url: '/github/repository', headers: user.auth, payload: { owner: login, name: repo, directory: o.directory ?? 'til' } });
  expect(r.statusCode).toBe(200);
  return { token, owner: login, repo };
}

const post = (user: User, summaryId: string) => stack.app.inject({ method: 'POST', url: `/til/${summaryId}/github-commits`, headers: user.auth });

async function activityAttempts(commitId: string): Promise<number[]> {
  const history = await stack.client.workflow.getHandle(jobWorkflowId('TIL_GITHUB_COMMIT', commitId)).fetchHistory();
  const scheduled = new Set(
    history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'commitTilToGithub').map((e) => String(e.eventId)),
  );
  return (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes && scheduled.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0);
}

it('checks in order: 404 other/unknown summary, 400 TIL_NOT_READY, 400 account, 400 repository, then 202, then 409 duplicate', async () => {
  const user = await stack.newUser();
  const other = await stack.newUser();
  expect((await post(user, '00000000-0000-4000-8000-000000000000')).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });

  const unfinished = await seedSummary(user, { generated: false });
  const notReady = await post(user, unfinished.id);
  expect(notReady.statusCode).toBe(400);
  expect(notReady.json().code).toBe('TIL_NOT_READY');

  const summary = await seedSummary(user, { title: 'Ordered checks' });
  const noAccount = await post(user, summary.id);
  expect([noAccount.statusCode, noAccount.json().code]).toEqual([400, 'GITHUB_ACCOUNT_NOT_LINKED']);

  const rejected = await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: 'ghp_not-a-real-token' } });
  expect([rejected.statusCode, rejected.json().code]).toEqual([422, 'GITHUB_TOKEN_REJECTED']);
  const login = 'ordered-octo';
  const token = emulator.addUser(login);
  emulator.addRepo(login, 'notes');
  const linked = await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } });
  expect(linked.json()).toEqual({ login, linkedAt: expect.any(String) });
  const noRepo = await post(user, summary.id);
  expect([noRepo.statusCode, noRepo.json().code]).toEqual([400, 'GITHUB_REPOSITORY_NOT_LINKED']);

  const missingRepo = await stack.app.inject({ method: 'PUT', url: '/github/repository', headers: user.auth, payload: { owner: login, name: 'nope' } });
  expect([missingRepo.statusCode, missingRepo.json().code]).toEqual([400, 'GITHUB_REPOSITORY_INACCESSIBLE']);
  const repo = await stack.app.inject({ method: 'PUT', url: '/github/repository', headers: user.auth, payload: { owner: login, name: 'notes' } });
  expect(repo.json()).toMatchObject({ owner: login, name: 'notes', branch: 'main', directory: '' });

  expect((await post(other, summary.id)).statusCode).toBe(404); // another user's summary does not exist for them
  const accepted = await post(user, summary.id);
  expect(accepted.statusCode).toBe(202);
  const body = accepted.json();
  expect(body).toEqual({ commitId: expect.any(String), jobId: expect.any(String), filePath: `${summary.date}-ordered-checks.md` });
  expect(accepted.headers.location).toBe(`/async-jobs/${body.jobId}`);
  expect((await waitForJob(stack, body.jobId, user.auth)).status).toBe('COMPLETED');

  const dup = await post(user, summary.id);
  expect(dup.statusCode).toBe(409);
  expect(dup.json().code).toBe('DUPLICATE_RESOURCE');
  expect(dup.json().detail).toContain(body.commitId);
  expect((await stack.app.inject({ method: 'GET', url: `/til/${summary.id}/github-commits`, headers: other.auth })).statusCode).toBe(404);
});

it('PUT /github/repository: a branch that does not exist is 422 GITHUB_BRANCH_NOT_FOUND and nothing is linked; an existing one is kept', async () => {
  const user = await stack.newUser();
  const login = `branchy${Date.now()}`;
  const token = emulator.addUser(login);
  emulator.addRepo(login, 'notes', { defaultBranch: 'trunk' });
  emulator.seedFile(login, 'notes', 'README.md', '# notes\n');
  emulator.addBranch(login, 'notes', 'feature/til');
  expect((await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } })).statusCode).toBe(200);
  const put = (payload: object) => stack.app.inject({ method: 'PUT', url: '/github/repository', headers: user.auth, payload });

  for (const branch of ['does-not-exist', 'feature', 'Trunk']) {
    const missing = await put({ owner: login, name: 'notes', branch });
    expect([branch, missing.statusCode, missing.json().code]).toEqual([branch, 422, 'GITHUB_BRANCH_NOT_FOUND']);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
  expect(await stack.db.githubRepository.count({ where: { userId: user.userId } })).toBe(0);
  expect(emulator.requests('GET /repos/{o}/{r}/branches/{branch}')).toBeGreaterThanOrEqual(3);

  expect((await put({ owner: login, name: 'notes', branch: 'feature/til' })).json()).toMatchObject({ branch: 'feature/til' });
  expect((await put({ owner: login, name: 'notes' })).json()).toMatchObject({ branch: 'trunk' }); // the repository's default
  expect((await put({ owner: login, name: 'notes', branch: 'trunk' })).statusCode).toBe(200);

  emulator.failNext(1, { status: 502 }, { route: 'GET /repos/{o}/{r}/branches/{branch}' });
  const down = await put({ owner: login, name: 'notes', branch: 'feature/til' });
  expect([down.statusCode, down.json().code]).toEqual([503, 'GITHUB_UNAVAILABLE']);
});

it('happy path: one commit on GitHub, SHA and URL recorded, both records COMPLETED, the workflow replays', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const markdown = '# B-tree indexes\r\n\r\nKeys stay sorted; lookups are O(log n).\r\n';
  const summary = await seedSummary(user, { title: 'B-tree indexes', markdown });
  const res = await post(user, summary.id);
  expect(res.statusCode).toBe(202);
  const { commitId, jobId, filePath } = res.json();
  expect(filePath).toBe(`til/${summary.date}-b-tree-indexes.md`);

  const job = await waitForJob(stack, jobId, user.auth);
  expect(job).toMatchObject({ status: 'COMPLETED', jobType: 'TIL_GITHUB_COMMIT', targetId: commitId, errorMessage: null });
  const commits = emulator.commits(gh.owner, gh.repo);
  expect(commits).toHaveLength(1);
  expect(commits[0]!.paths).toEqual([filePath]);
  expect(commits[0]!.message).toBe(`TIL ${summary.date}: B-tree indexes`);
  expect(emulator.file(gh.owner, gh.repo, filePath)).toBe('# B-tree indexes\n\nKeys stay sorted; lookups are O(log n).\n');

  const row = await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commitId } });
  expect(row).toMatchObject({ status: 'COMPLETED', commitSha: commits[0]!.sha, htmlUrl: `${EMULATOR_HTML_BASE}/${gh.owner}/${gh.repo}/commit/${commits[0]!.sha}` });
  expect(row.finishedAt).not.toBeNull();

  const list = await stack.app.inject({ method: 'GET', url: `/til/${summary.id}/github-commits`, headers: user.auth });
  expect(list.json()).toEqual({
    summaryId: summary.id,
    commits: [expect.objectContaining({ commitId, jobId, status: 'COMPLETED', filePath, repository: `${gh.owner}/${gh.repo}`, branch: 'main', commitSha: commits[0]!.sha, htmlUrl: row.htmlUrl })],
  });

  const history = await stack.client.workflow.getHandle(jobWorkflowId('TIL_GITHUB_COMMIT', commitId)).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter: testDataConverter() }, history, `replay-${commitId}`);
});

it('path collision: a file already in the repository gets the -2 name; the existing file is untouched', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const summary = await seedSummary(user, { title: 'Hello World' });
  const taken = `til/${summary.date}-hello-world.md`;
  emulator.seedFile(gh.owner, gh.repo, taken, 'someone else wrote this\n');
  const res = await post(user, summary.id);
  expect(res.json().filePath).toBe(`til/${summary.date}-hello-world-2.md`);
  expect((await waitForJob(stack, res.json().jobId, user.auth)).status).toBe('COMPLETED');
  expect(emulator.file(gh.owner, gh.repo, taken)).toBe('someone else wrote this\n');
  expect(emulator.files(gh.owner, gh.repo).sort()).toEqual([taken, `til/${summary.date}-hello-world-2.md`].sort());
});

it('a Korean title with spaces and punctuation round-trips as the file path', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user, { directory: '/notes/오늘 배운 것/' });
  const summary = await seedSummary(user, { title: 'PostgreSQL 인덱스: B-Tree & GIN 정리!' });
  const res = await post(user, summary.id);
  const expected = `notes/오늘 배운 것/${summary.date}-postgresql-인덱스-b-tree-gin-정리.md`;
  expect(res.json().filePath).toBe(expected);
  expect((await waitForJob(stack, res.json().jobId, user.auth)).status).toBe('COMPLETED');
  expect(emulator.files(gh.owner, gh.repo)).toEqual([expected]);
  const put = emulator.log.find((l) => l.method === 'PUT' && l.url.includes(gh.repo));
  expect(put?.url).toContain('/contents/notes/%EC%98%A4%EB%8A%98%20%EB%B0%B0%EC%9A%B4%20%EA%B2%83/');
});

it('10 concurrent identical requests make one commit (the others answer 409)', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const summary = await seedSummary(user, { title: 'Concurrency' });
  const answers = await Promise.all(Array.from({ length: 10 }, () => post(user, summary.id)));
  const codes = answers.map((a) => a.statusCode).sort();
  expect(codes).toEqual([202, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
  const winner = answers.find((a) => a.statusCode === 202)!.json();
  for (const a of answers.filter((x) => x.statusCode === 409)) expect(a.json().code).toBe('DUPLICATE_RESOURCE');
  expect((await waitForJob(stack, winner.jobId, user.auth)).status).toBe('COMPLETED');
  expect(await stack.db.tilGithubCommit.count({ where: { summaryId: summary.id } })).toBe(1);
  expect(await stack.db.asyncJob.count({ where: { jobType: 'TIL_GITHUB_COMMIT', targetId: winner.commitId } })).toBe(1);
  expect(emulator.commits(gh.owner, gh.repo)).toHaveLength(1);
});

it('GitHub answers 401 inside the job: FAILED on both records after one attempt, with the cause chain', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const summary = await seedSummary(user, { title: 'Revoked' });
  await stack.stopGithubWorker(); // the token is revoked between the request and the job
  const res = await post(user, summary.id);
  expect(res.statusCode).toBe(202);
  emulator.revokeToken(gh.token);
  await stack.startGithubWorker();
  const { commitId, jobId } = res.json();
  const job = await waitForJob(stack, jobId, user.auth);
  expect(job.status).toBe('FAILED');
  expect(job.errorMessage).toContain('GITHUB_UNAUTHORIZED');
  expect(job.errorMessage).toContain('RequestError');
  expect(job.errorMessage).not.toContain(gh.token);
  const row = await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commitId } });
  expect(row.status).toBe('FAILED');
  expect(row.errorMessage).toMatch(/ApplicationFailure\[GITHUB_UNAUTHORIZED\]: GitHub rejected the access token \(401\)/);
  expect(await activityAttempts(commitId)).toEqual([1]);
  expect(emulator.commits(gh.owner, gh.repo)).toHaveLength(0);

  // The FAILED row does not block the content; this time the API itself meets the revoked token.
  const again = await post(user, summary.id);
  expect([again.statusCode, again.json().code]).toEqual([422, 'GITHUB_TOKEN_REJECTED']);
});

it('429 with Retry-After, a secondary rate limit and a 500: retried after the delay GitHub asked for, then one commit', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const summary = await seedSummary(user, { title: 'Rate limits' });
  const PUT = 'PUT /repos/{o}/{r}/contents/{path}';
  emulator.failNext(1, { status: 429, headers: { 'retry-after': '1' }, body: { message: 'API rate limit exceeded' } }, { route: PUT });
  emulator.failNext(1, { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) }, body: { message: 'You have exceeded a secondary rate limit' } }, { route: PUT });
  emulator.failNext(1, { status: 500, body: { message: 'Server Error' } }, { route: PUT });
  const putsBefore = emulator.requests(PUT);
  const started = Date.now();
  const res = await post(user, summary.id);
  const { commitId, jobId } = res.json();
  expect((await waitForJob(stack, jobId, user.auth)).status).toBe('COMPLETED');
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(emulator.requests(PUT) - putsBefore).toBe(4);
  expect(await activityAttempts(commitId)).toEqual([4]); // Temporal records the last attempt of a completed activity
  expect(emulator.commits(gh.owner, gh.repo)).toHaveLength(1);
  const row = await stack.db.tilGithubCommit.findUniqueOrThrow({ where: { id: commitId } });
  expect(row.commitSha).toBe(emulator.commits(gh.owner, gh.repo)[0]!.sha);
});

it('the access token is stored encrypted and never answered or logged', async () => {
  const user = await stack.newUser();
  const gh = await linkGithub(user);
  const row = await stack.db.githubAccount.findUniqueOrThrow({ where: { userId: user.userId } });
  expect(row.tokenEncrypted).not.toContain(gh.token);
  expect(row.keyId).toBe('dev');
  const answers = await Promise.all([
    stack.app.inject({ method: 'GET', url: '/github/account', headers: user.auth }),
    stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: gh.token } }),
    stack.app.inject({ method: 'GET', url: '/github/repository', headers: user.auth }),
  ]);
  for (const a of answers) {
    expect(a.statusCode).toBe(200);
    expect(a.body).not.toContain(gh.token);
    expect(a.body).not.toContain(row.tokenEncrypted);
  }
  expect(Object.keys(answers[0]!.json()).sort()).toEqual(['linkedAt', 'login']);
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('')).not.toContain(gh.token);
  const del = await stack.app.inject({ method: 'DELETE', url: '/github/account', headers: user.auth });
  expect(del.statusCode).toBe(204);
  expect((await stack.app.inject({ method: 'GET', url: '/github/account', headers: user.auth })).statusCode).toBe(404);
});
