/**
 * SAN-12 GITHUB_STAR_RECOMMENDATION end to end: the HTTP API, the real `jobs`, `ai` and `github`
 * workers on the real Temporal dev server and PostgreSQL, the Octokit adapter against the local
 * GitHub emulator (Link pagination), and the local AI provider's embeddings.
 */
import { jobWorkflowId, SA_JOB_TYPE, SA_USER_ID } from '../../../src/core/contracts';
import { PG_INDEXES, PG_PARTIAL } from '../../fixtures/texts';
import { startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';
import { startStack, waitForJob, type Stack } from '../../support/stack';

type User = Awaited<ReturnType<Stack['newUser']>>;

let emulator: GithubEmulator;
let stack: Stack;
beforeAll(async () => {
  emulator = await startGithubEmulator();
  stack = await startStack({ githubWorker: true, env: { GITHUB_API_URL: emulator.url } });
});
afterAll(async () => {
  await stack?.stop();
  await emulator?.close();
});

let seq = 0;
/** A GitHub user for `user`, linked through the API; returns its token. */
async function linkGithub(user: User): Promise<string> {
  seq += 1;
  const token = emulator.addUser(`stargazer${seq}`);
  const res = await stack.app.inject({ method: 'PUT', url: '/github/account', headers: user.auth, payload: { accessToken: token } });
  expect(res.statusCode).toBe(200);
  return token;
}

/** Knowledge cards about PostgreSQL for `user`, through the real pipeline. */
async function postgresCards(user: User): Promise<void> {
  for (const content of [PG_INDEXES, PG_PARTIAL]) {
    const ids = (await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } })).json();
    expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
  }
}

const request = (user: User) => stack.app.inject({ method: 'POST', url: '/github-star-recommendations', headers: user.auth });
const latest = (user: User, qs = '') => stack.app.inject({ method: 'GET', url: `/github-star-recommendations${qs}`, headers: user.auth });

const PG_REPO = 'dbtools/pg-index-advisor';
const COOKING_REPO = 'kitchen/sourdough-recipes';

/** 130 starred repositories (two pages of 100): one about PostgreSQL indexes, one about baking, 128 fillers. */
function seedStars(token: string, tag: string): string[] {
  const names: string[] = [];
  emulator.addRepo('dbtools', `pg-index-advisor${tag}`, {
    description: 'Finds missing B-tree and partial indexes in PostgreSQL databases from EXPLAIN ANALYZE plans',
    topics: ['postgresql', 'indexing', 'query-planner'], language: 'Go', stars: 420,
  });
  emulator.addRepo('kitchen', `sourdough-recipes${tag}`, {
    description: 'Sourdough bread recipes: feeding the starter, proofing the dough overnight, baking in a Dutch oven',
    topics: ['baking', 'cooking', 'bread'], stars: 98_000,
  });
  names.push(`dbtools/pg-index-advisor${tag}`, `kitchen/sourdough-recipes${tag}`);
  const themes = ['terminal colour themes', 'a markdown blog engine', 'keyboard firmware', 'a photo gallery', 'a chess engine', 'weather widgets', 'a tiling window manager', 'emoji picker'];
  for (let i = 0; i < 128; i += 1) {
    const name = `filler-${i}${tag}`;
    emulator.addRepo(`misc${i % 7}`, name, { description: `Yet another project: ${themes[i % themes.length]} (#${i})`, stars: (i * 37) % 5000 });
    names.push(`misc${i % 7}/${name}`);
  }
  emulator.addStarred(token, names);
  return names;
}

it('ranks >100 starred repositories (Link pagination) against the cards: PostgreSQL above cooking, with reasons', async () => {
  const user = await stack.newUser();
  await postgresCards(user);
  const token = await linkGithub(user);
  seedStars(token, '');
  const pagesBefore = emulator.requests('GET /user/starred');

  const res = await request(user);
  expect(res.statusCode).toBe(202);
  const { jobId, targetId } = res.json();
  expect(targetId).toBe(user.userId);
  expect(res.headers.location).toBe(`/async-jobs/${jobId}`);
  const done = await waitForJob(stack, jobId, user.auth);
  if (done.status !== 'COMPLETED') throw new Error(String(done.errorMessage));
  expect(done).toMatchObject({ status: 'COMPLETED', jobType: 'GITHUB_STAR_RECOMMENDATION', targetId: user.userId });
  expect(emulator.requests('GET /user/starred') - pagesBefore).toBe(2); // per_page=100: pages 1 and 2

  const got = await latest(user, '?limit=1000');
  expect(got.statusCode).toBe(200);
  const body = got.json();
  expect(body).toMatchObject({ jobId, starredCount: 130, totalItems: 130 });
  const names = body.items.map((i: { fullName: string }) => i.fullName);
  expect(new Set(names).size).toBe(130);
  expect(names.indexOf(PG_REPO)).toBe(0);
  expect(names.indexOf(PG_REPO)).toBeLessThan(names.indexOf(COOKING_REPO));
  const top = body.items[0];
  expect(top).toMatchObject({ rank: 1, htmlUrl: expect.stringContaining(PG_REPO), language: 'Go', stars: 420, topics: ['postgresql', 'indexing', 'query-planner'] });
  expect(top.reasons.length).toBeGreaterThan(0);
  const cardTitles = (await stack.db.knowledgeCard.findMany({ where: { userId: user.userId }, select: { title: true } })).map((c) => c.title);
  for (const r of top.reasons) expect(cardTitles).toContain(r.title);
  expect(body.items.map((i: { score: number }) => i.score)).toEqual([...body.items.map((i: { score: number }) => i.score)].sort((a, b) => b - a));

  expect((await latest(user)).json().items).toHaveLength(20); // default limit

  // Searchable by job type and user (DC-4).
  const wf = await stack.client.workflow.getHandle(jobWorkflowId('GITHUB_STAR_RECOMMENDATION', user.userId)).describe();
  expect(wf.typedSearchAttributes.get(SA_USER_ID)).toBe(user.userId);
  expect(wf.typedSearchAttributes.get(SA_JOB_TYPE)).toBe('GITHUB_STAR_RECOMMENDATION');
}, 120_000);

it('one active job per user: a second request while it runs is 409 pointing at the same job', async () => {
  const user = await stack.newUser();
  const token = await linkGithub(user);
  emulator.addRepo('solo', 'only-one', { description: 'PostgreSQL connection pooler', stars: 3 });
  emulator.addStarred(token, ['solo/only-one']);
  await stack.stopGithubWorker(); // the job waits in fetchStarredRepos, PROCESSING
  try {
    const answers = await Promise.all(Array.from({ length: 5 }, () => request(user)));
    const accepted = answers.filter((a) => a.statusCode === 202);
    expect(accepted).toHaveLength(1);
    const jobId = accepted[0]!.json().jobId;
    for (const a of answers.filter((x) => x.statusCode !== 202)) {
      expect(a.statusCode).toBe(409);
      expect(a.json()).toMatchObject({ code: 'DUPLICATE_RESOURCE', detail: expect.stringContaining(jobId) });
      expect(a.headers.location).toBe(`/async-jobs/${jobId}`);
    }
    expect(await stack.db.asyncJob.count({ where: { targetId: user.userId, jobType: 'GITHUB_STAR_RECOMMENDATION' } })).toBe(1);
  } finally {
    await stack.startGithubWorker();
  }
  const job = await stack.db.asyncJob.findFirstOrThrow({ where: { targetId: user.userId } });
  expect((await waitForJob(stack, job.jobId, user.auth)).status).toBe('COMPLETED');
  // Without cards nothing is relevant: ranked by the prior alone, no reasons.
  expect((await latest(user)).json()).toMatchObject({ starredCount: 1, items: [{ rank: 1, fullName: 'solo/only-one', relevance: 0, reasons: [] }] });

  // Finished: a new request is a new job, and GET returns the newest result.
  const again = await request(user);
  expect(again.statusCode).toBe(202);
  expect(again.json().jobId).not.toBe(job.jobId);
  expect((await waitForJob(stack, again.json().jobId, user.auth)).status).toBe('COMPLETED');
  expect((await latest(user)).json().jobId).toBe(again.json().jobId);
}, 120_000);

it('no stars: completes with an empty list', async () => {
  const user = await stack.newUser();
  await linkGithub(user);
  const res = await request(user);
  expect((await waitForJob(stack, res.json().jobId, user.auth)).status).toBe('COMPLETED');
  expect((await latest(user)).json()).toMatchObject({ starredCount: 0, totalItems: 0, items: [] });
});

it('a revoked token fails the job with the GitHub cause, not retried', async () => {
  const user = await stack.newUser();
  const token = await linkGithub(user);
  emulator.revokeToken(token);
  const res = await request(user);
  const job = await waitForJob(stack, res.json().jobId, user.auth);
  expect(job.status).toBe('FAILED');
  expect(job.errorMessage).toContain('GITHUB_UNAUTHORIZED');
  expect((await latest(user)).statusCode).toBe(404);
});

it('400 without a linked account, 404 before any result and for other users, 401 without a token', async () => {
  const user = await stack.newUser();
  const unlinked = await request(user);
  expect(unlinked.statusCode).toBe(400);
  expect(unlinked.json()).toMatchObject({ code: 'GITHUB_ACCOUNT_NOT_LINKED' });
  expect(await stack.db.asyncJob.count({ where: { targetId: user.userId } })).toBe(0);
  expect((await latest(user)).statusCode).toBe(404);
  expect((await latest(user)).json()).toMatchObject({ code: 'NOT_FOUND' });
  expect((await stack.app.inject({ method: 'POST', url: '/github-star-recommendations' })).statusCode).toBe(401);
  expect((await stack.app.inject({ method: 'GET', url: '/github-star-recommendations' })).statusCode).toBe(401);
  expect((await latest(user, '?limit=0')).statusCode).toBe(400);
});
