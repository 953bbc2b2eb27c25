import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { startStack, waitForJob, type Stack } from '../../support/stack';

let stack: Stack;
let alice: Awaited<ReturnType<Stack['newUser']>>;
let bob: Awaited<ReturnType<Stack['newUser']>>;

beforeAll(async () => {
  stack = await startStack();
  alice = await stack.newUser('alice');
  bob = await stack.newUser('bob');
});
afterAll(async () => stack?.stop());

async function submit(content: string, auth = alice.auth, extra: object = {}) {
  return stack.app.inject({ method: 'POST', url: '/scraps', headers: auth, payload: { content, ...extra } });
}

describe('POST /scraps → CARD_ANALYSIS and SCRAP_REFINE', () => {
  let ids: { scrapId: string; analysisJobId: string; refineJobId: string };

  beforeAll(async () => {
    const res = await submit(`\r\n  ${PG_INDEXES.replace(/\n/g, '\r\n')}  \r\n`, alice.auth, { sourceUrl: 'https://example.com/btree', title: 'btree' });
    expect(res.statusCode).toBe(202);
    ids = res.json();
    expect(res.headers.location).toBe(`/async-jobs/${ids.analysisJobId}`);
  });

  it('completes both jobs and stores one card with its category and tags', async () => {
    expect(await waitForJob(stack, ids.analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED', errorMessage: null, jobType: 'CARD_ANALYSIS', targetId: ids.scrapId });
    expect(await waitForJob(stack, ids.refineJobId, alice.auth)).toMatchObject({ status: 'COMPLETED', jobType: 'SCRAP_REFINE' });

    const card = await stack.app.inject({ method: 'GET', url: `/cards/${ids.scrapId}`, headers: alice.auth });
    expect(card.statusCode).toBe(200);
    const body = card.json();
    expect(body.scrapId).toBe(ids.scrapId);
    expect(body.title).toBe('btree'); // the submitted title wins over the extracted one
    expect(body.tags.length).toBeGreaterThan(0);
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);

    const scrap = await stack.db.scrap.findUniqueOrThrow({ where: { id: ids.scrapId } });
    expect(scrap.content.startsWith('# B-tree')).toBe(true); // normalised: trimmed
    expect(scrap.content).not.toContain('\r');
    expect(scrap.refinedContent).toBeTruthy();
  });

  it('deduplicates by normalised content: CRLF and surrounding whitespace do not matter', async () => {
    const again = await submit(PG_INDEXES);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ scrapId: ids.scrapId, analysisJobId: ids.analysisJobId, refineJobId: ids.refineJobId, created: false });
    expect(await stack.db.asyncJob.count({ where: { targetId: ids.scrapId } })).toBe(2);
  });

  it('the same content from another user is another scrap', async () => {
    const res = await submit(PG_INDEXES, bob.auth);
    expect(res.statusCode).toBe(202);
    expect(res.json().scrapId).not.toBe(ids.scrapId);
    await waitForJob(stack, res.json().analysisJobId, bob.auth);
  });

  it('similar-cards: near cards pass the 0.5 threshold, the K-nearest fallback otherwise, own card and other users excluded', async () => {
    const partial = (await submit(PG_PARTIAL)).json();
    const bread = (await submit(SOURDOUGH)).json();
    await waitForJob(stack, partial.analysisJobId, alice.auth);
    await waitForJob(stack, bread.analysisJobId, alice.auth);
    const cardOf = async (scrapId: string) =>
      (await stack.app.inject({ method: 'GET', url: `/cards/${scrapId}`, headers: alice.auth })).json().cardId as string;
    const btreeCard = await cardOf(ids.scrapId);
    const breadCard = await cardOf(bread.scrapId);

    const sim = (await stack.app.inject({ method: 'GET', url: `/cards/${btreeCard}/similar-cards`, headers: alice.auth })).json();
    expect(sim.cardId).toBe(btreeCard);
    const simIds = sim.cards.map((c: { scrapId: string }) => c.scrapId);
    expect(simIds).not.toContain(ids.scrapId);
    const bobCards = await stack.db.knowledgeCard.findMany({ where: { userId: bob.userId }, select: { id: true } });
    for (const c of bobCards) expect(sim.cards.map((x: { cardId: string }) => x.cardId)).not.toContain(c.id);
    if (sim.matchedBy === 'threshold') {
      expect(simIds).toEqual([partial.scrapId]);
      for (const c of sim.cards) expect(c.distance).toBeLessThanOrEqual(0.5);
    } else {
      expect(simIds[0]).toBe(partial.scrapId);
    }

    const breadSim = (await stack.app.inject({ method: 'GET', url: `/cards/${breadCard}/similar-cards`, headers: alice.auth })).json();
    expect(breadSim.matchedBy).toBe('fallback');
    expect(breadSim.cards).toHaveLength(2); // K=5 but alice has only two other cards
    expect(breadSim.cards[0].distance).toBeLessThanOrEqual(breadSim.cards[1].distance);
  });
});

describe('astral-plane text (SAN-7): emoji content and titles are analysed and stored', () => {
  // 61 × 😀 is 122 UTF-16 code units: clipping the title to 120 used to cut a surrogate pair in
  // half, and PostgreSQL refused the card on every attempt, leaving the job PROCESSING.
  it.each([
    ['content of 61 × 😀', '😀'.repeat(61), undefined],
    ['a title of 61 × 😀', `Emoji titles: ${PG_PARTIAL}`, '😀'.repeat(61)],
    ['Korean and emoji mixed, odd offsets', `a${'스케줄링 😀🚀 '.repeat(40)}`, `a${'🧵'.repeat(80)}`],
  ])('%s → both jobs COMPLETED, the card well-formed', async (_name, content, title) => {
    const res = await submit(content, alice.auth, title ? { title } : {});
    expect(res.statusCode).toBe(202);
    const { scrapId, analysisJobId, refineJobId } = res.json();
    expect(await waitForJob(stack, analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED', errorMessage: null });
    expect(await waitForJob(stack, refineJobId, alice.auth)).toMatchObject({ status: 'COMPLETED', errorMessage: null });
    const card = (await stack.app.inject({ method: 'GET', url: `/cards/${scrapId}`, headers: alice.auth })).json();
    expect(card.title.isWellFormed()).toBe(true);
    expect(card.title.length).toBeLessThanOrEqual(200);
    expect(card.summary.isWellFormed()).toBe(true);
  });
});

describe('concurrency', () => {
  it('20 concurrent identical POST /scraps → one scrap, one analysis job, one refine job, all answers naming them', async () => {
    const content = `${SOURDOUGH}\nconcurrency probe ${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => submit(content)));
    for (const a of answers) expect(a.statusCode).toBe(202);
    const bodies = answers.map((a) => a.json());
    const first = bodies[0];
    for (const b of bodies) expect({ ...b, created: undefined }).toEqual({ ...first, created: undefined });
    expect(bodies.filter((b) => b.created)).toHaveLength(1);
    expect(await stack.db.scrap.count({ where: { id: first.scrapId } })).toBe(1);
    expect(await stack.db.asyncJob.count({ where: { targetId: first.scrapId, jobType: 'CARD_ANALYSIS' } })).toBe(1);
    expect(await stack.db.asyncJob.count({ where: { targetId: first.scrapId, jobType: 'SCRAP_REFINE' } })).toBe(1);
    expect((await waitForJob(stack, first.analysisJobId, alice.auth)).status).toBe('COMPLETED');
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: first.scrapId } })).toBe(1);
  });
});

describe('auth and ownership', () => {
  it('no token or a bad token → 401 problem+json', async () => {
    const none = await stack.app.inject({ method: 'POST', url: '/scraps', payload: { content: 'x' } });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(none.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const bad = await stack.app.inject({ method: 'GET', url: '/async-jobs/00000000-0000-4000-8000-000000000000', headers: { authorization: 'Bearer nope' } });
    expect(bad.statusCode).toBe(401);
  });

  it("another user's scrap, job and card are 404", async () => {
    const mine = (await submit(`ownership probe ${Date.now()} ${PG_PARTIAL}`)).json();
    await waitForJob(stack, mine.analysisJobId, alice.auth);
    const card = (await stack.app.inject({ method: 'GET', url: `/cards/${mine.scrapId}`, headers: alice.auth })).json();
    for (const url of [`/async-jobs/${mine.analysisJobId}`, `/cards/${mine.scrapId}`, `/cards/${card.cardId}/similar-cards`]) {
      const res = await stack.app.inject({ method: 'GET', url, headers: bob.auth });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
      expect((await stack.app.inject({ method: 'GET', url, headers: alice.auth })).statusCode).toBe(200);
    }
  });

  it('X-Request-Id is echoed when it is a sane token, replaced otherwise', async () => {
    const kept = await stack.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-123.abc' } });
    expect(kept.headers['x-request-id']).toBe('req-123.abc');
    const replaced = await stack.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': `<script>${'x'.repeat(300)}` } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('health and docs need no token', async () => {
    expect((await stack.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await stack.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'ok' });
    const doc = await stack.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    expect(doc.json().paths['/health'].get.security).toEqual([]);
    expect(Object.keys(doc.json().components.schemas)).toEqual(expect.arrayContaining(['Problem', 'AsyncJob', 'ScrapAccepted']));
    expect(Object.keys(doc.json().paths)).toEqual(expect.arrayContaining(['/scraps', '/async-jobs/{jobId}', '/cards/{id}', '/cards/{id}/similar-cards']));
    expect((await stack.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
  });
});

describe('bad input is a clear 4xx, never a 500, and writes nothing', () => {
  const cases: [string, () => Promise<{ statusCode: number; headers: Record<string, unknown>; json(): { code: string } }>, number, string][] = [
    ['empty content', () => submit(''), 400, 'VALIDATION_FAILED'],
    ['whitespace-only content', () => submit(' \r\n\t '), 400, 'VALIDATION_FAILED'],
    ['content of the wrong type', () => stack.app.inject({ method: 'POST', url: '/scraps', headers: alice.auth, payload: { content: 42 } }), 400, 'VALIDATION_FAILED'],
    ['missing content', () => stack.app.inject({ method: 'POST', url: '/scraps', headers: alice.auth, payload: {} }), 400, 'VALIDATION_FAILED'],
    ['a non-http sourceUrl', () => submit('x', alice.auth, { sourceUrl: 'javascript:alert(1)' }), 400, 'VALIDATION_FAILED'],
    ['malformed JSON', () => stack.app.inject({ method: 'POST', url: '/scraps', headers: { ...alice.auth, 'content-type': 'application/json' }, payload: '{"content": ' }), 400, 'MALFORMED_JSON'],
    ['a body over the size limit', () => submit('a'.repeat(1_100_000)), 413, 'PAYLOAD_TOO_LARGE'],
    ['content over the character limit', () => submit('a'.repeat(100_001)), 400, 'VALIDATION_FAILED'],
    ['a non-JSON media type', () => stack.app.inject({ method: 'POST', url: '/scraps', headers: { ...alice.auth, 'content-type': 'text/plain' }, payload: 'hello' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a malformed UUID in a path', () => stack.app.inject({ method: 'GET', url: '/async-jobs/not-a-uuid', headers: alice.auth }), 400, 'VALIDATION_FAILED'],
    ['a malformed card id', () => stack.app.inject({ method: 'GET', url: '/cards/123/similar-cards', headers: alice.auth }), 400, 'VALIDATION_FAILED'],
    ['an unknown route', () => stack.app.inject({ method: 'GET', url: '/nope', headers: alice.auth }), 404, 'NOT_FOUND'],
    ['a NUL character in content', () => submit('abc\u0000def'), 400, 'VALIDATION_FAILED'],
    ['a lone surrogate in a title', () => submit('fine text', alice.auth, { title: 'a\ud800b' }), 400, 'VALIDATION_FAILED'],
    ['invisible-only content', () => submit('\u200b\u00a0\u3000\ufeff'), 400, 'VALIDATION_FAILED'],
    ['an over-long path parameter', () => stack.app.inject({ method: 'GET', url: `/async-jobs/${'a'.repeat(5000)}`, headers: alice.auth }), 414, 'VALIDATION_FAILED'],
    ['year 0000 in a date', () => stack.app.inject({ method: 'GET', url: '/til?date=0000-01-01', headers: alice.auth }), 400, 'VALIDATION_FAILED'],
  ];
  it.each(cases)('%s', async (_name, call, status, code) => {
    const before = await stack.db.scrap.count();
    const res = await call();
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(code);
    expect(await stack.db.scrap.count()).toBe(before);
  });
});
