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

/** POST /scraps with a raw body and Content-Type. */
async function raw(body: string | Buffer, contentType = 'application/json', auth = alice.auth) {
  return stack.app.inject({ method: 'POST', url: '/scraps', headers: { ...auth, 'content-type': contentType }, payload: body });
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
  // 61 × 😀 is 122 UTF-16 code units: a title clipped to 120 must not cut a surrogate pair in half,
  // which PostgreSQL refuses on every attempt, leaving the job PROCESSING.
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
    ['a body nested 10,000 levels deep', () => raw(`{"content":"x","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`), 400, 'VALIDATION_FAILED'],
    ['a body nested 33 levels deep', () => raw(`{"content":${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`), 400, 'VALIDATION_FAILED'],
    ['a __proto__ key', () => raw('{"content":"proto probe","__proto__":{"polluted":true}}'), 400, 'MALFORMED_JSON'],
    ['a charset other than UTF-8', () => raw(Buffer.from('{"content":"caf\xe9"}', 'latin1'), 'application/json; charset=iso-8859-1'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a quoted upper-case non-UTF-8 charset', () => raw('{"content":"x"}', 'application/json; Charset="WINDOWS-1252"'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['bytes that are not UTF-8', () => raw(Buffer.from('{"content":"caf\xe9"}', 'latin1')), 400, 'MALFORMED_JSON'],
    ['an overlong UTF-8 encoding', () => raw(Buffer.concat([Buffer.from('{"content":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')])), 400, 'MALFORMED_JSON'],
    ['NEL-only content', () => submit('\u0085'), 400, 'VALIDATION_FAILED'],
    ['line/paragraph separators and joiners only', () => submit('\u2028\u2029\u200d\u2060\u200c'), 400, 'VALIDATION_FAILED'],
    ['an invisible-only title', () => submit('visible text', alice.auth, { title: '\u200b\u3164' }), 400, 'VALIDATION_FAILED'],
    ['an ftp sourceUrl', () => submit('x', alice.auth, { sourceUrl: 'ftp://example.com/x' }), 400, 'VALIDATION_FAILED'],
    ['a wrong method on a known path', () => stack.app.inject({ method: 'DELETE', url: '/scraps', headers: alice.auth }), 405, 'METHOD_NOT_ALLOWED'],
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

describe('hostile input: the class, not one sample', () => {
  it('unknown fields are rejected and named (at most 20, the rest counted), even 100,000 of them', async () => {
    const before = await stack.db.scrap.count();
    const body: Record<string, unknown> = { content: 'unknown field probe' };
    for (let i = 0; i < 100_000; i++) body[`k${i.toString(36)}`] = 0;
    const text = JSON.stringify(body);
    expect(text.length).toBeLessThan(stack.config.api.bodyLimitBytes); // the body limit is not what stops it
    const res = await raw(text);
    expect(res.statusCode).toBe(400);
    const problem = res.json();
    expect(problem.code).toBe('VALIDATION_FAILED');
    expect(problem.errors).toHaveLength(21);
    expect(problem.errors[0]).toEqual({ path: 'body.k0', message: 'unknown field' });
    expect(problem.errors[20]).toEqual({ path: 'body', message: '99980 more errors not listed' });
    expect(problem.detail.length).toBeLessThan(2000);
    expect(await stack.db.scrap.count()).toBe(before);

    const one = await submit('one unknown field', alice.auth, { titel: 'typo' });
    expect(one.statusCode).toBe(400);
    expect(one.json().errors).toEqual([{ path: 'body.titel', message: 'unknown field' }]);
  });

  it('NFC and NFD of the same text are one scrap; the stored text is NFC', async () => {
    const text = `Ångström-scale café notes on naïve Bayes ${Date.now()}`;
    const nfc = await submit(text.normalize('NFC'));
    const nfd = await submit(text.normalize('NFD'));
    expect(nfc.statusCode).toBe(202);
    expect(nfd.json()).toMatchObject({ scrapId: nfc.json().scrapId, created: false });
    const scrap = await stack.db.scrap.findUniqueOrThrow({ where: { id: nfc.json().scrapId } });
    expect(scrap.content).toBe(text.normalize('NFC'));
  });

  it('zero-width and format characters at both ends are trimmed before storing and hashing', async () => {
    const text = `zero-width probe ${Date.now()}`;
    const padded = await submit(`\ufeff\u200b\u2060${text}\u200d\u200b\u0085`, alice.auth, { title: '\u200bTitle\u2060' });
    expect(padded.statusCode).toBe(202);
    const scrap = await stack.db.scrap.findUniqueOrThrow({ where: { id: padded.json().scrapId } });
    expect(scrap.content).toBe(text);
    expect(scrap.title).toBe('Title');
    expect((await submit(text)).json()).toMatchObject({ scrapId: padded.json().scrapId, created: false });
  });

  it('a wrong method answers 405 with Allow listing the methods of that path', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/scraps', 'POST'],
      ['PATCH', '/github/repository', 'GET, HEAD, PUT, DELETE'],
      ['DELETE', '/async-jobs/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
      ['PUT', '/til/00000000-0000-4000-8000-000000000000/github-commits/', 'GET, HEAD, POST'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await stack.app.inject({ method: method as 'GET', url, headers: alice.auth });
      expect([method, url, res.statusCode]).toEqual([method, url, 405]);
      expect(res.headers.allow).toBe(allow);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await stack.app.inject({ method: 'DELETE', url: '/nowhere', headers: alice.auth })).statusCode).toBe(404);
  });
});
