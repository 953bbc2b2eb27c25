/**
 * The Octokit adapter against the GitHub emulator (GitHub's contents, commits, starred semantics)
 * and the classification of GitHub errors into Temporal retry classes (SAN-10, SAN-12).
 */
import { ApplicationFailure } from '@temporalio/common';
import { classifyGithubError, encodeContentPath, octokitClientFactory, type GithubClient, type GithubRequestError } from '../../../src/github/client';
import { toGithubFailure } from '../../../src/github/failures';
import { EMULATOR_HTML_BASE, gitBlobSha, startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';

let emulator: GithubEmulator;
let token: string;
let client: GithubClient;
const factory = () => octokitClientFactory({ baseUrl: emulator.url, timeoutMs: 5000 });

beforeAll(async () => {
  emulator = await startGithubEmulator();
  token = emulator.addUser('octo');
  emulator.addRepo('octo', 'notes');
  client = await factory()(token);
});
afterAll(async () => emulator?.close());

/** The RequestError a call rejects with. */
async function failure(p: Promise<unknown>): Promise<GithubRequestError> {
  try {
    await p;
  } catch (err) {
    return err as GithubRequestError;
  }
  throw new Error('expected a failure');
}

describe('Octokit adapter against the emulator', () => {
  it('reads the user and repository', async () => {
    expect(await client.getAuthenticatedUser()).toEqual({ login: 'octo', id: expect.any(Number) });
    expect(await client.getRepository('octo', 'notes')).toEqual({ fullName: 'octo/notes', defaultBranch: 'main', private: false, canPush: true });
  });

  it('reads a branch (slashes included) and answers null for a missing one, as GitHub does', async () => {
    emulator.seedFile('octo', 'notes', 'branch-probe.md', 'x');
    emulator.addBranch('octo', 'notes', 'topic/a-b');
    const head = emulator.commits('octo', 'notes')[0]!.sha;
    expect(await client.getBranch('octo', 'notes', 'main')).toEqual({ name: 'main', sha: head });
    expect(await client.getBranch('octo', 'notes', 'topic/a-b')).toEqual({ name: 'topic/a-b', sha: head });
    expect(await client.getBranch('octo', 'notes', 'nope')).toBeNull();
    expect(await client.getBranch('someone', 'secret', 'main')).toBeNull(); // GitHub's 404 does not tell them apart
  });

  it('creates a file, refuses a create without sha (422) and a stale sha (409), updates with the right sha', async () => {
    const path = 'dir/한글 이름 #1.md';
    expect(await client.getFile('octo', 'notes', path, 'main')).toBeNull();
    const created = await client.putFile({ owner: 'octo', repo: 'notes', path, branch: 'main', message: 'add', content: 'one\n' });
    expect(created.contentSha).toBe(gitBlobSha(Buffer.from('one\n')));
    expect(await client.getFile('octo', 'notes', path, 'main')).toEqual({ sha: created.contentSha, content: 'one\n' });

    const noSha = await failure(client.putFile({ owner: 'octo', repo: 'notes', path, branch: 'main', message: 'again', content: 'two\n' }));
    expect([noSha.status, noSha.message]).toEqual([422, expect.stringContaining('"sha" wasn\'t supplied')]);
    const stale = await failure(client.putFile({ owner: 'octo', repo: 'notes', path, branch: 'main', message: 'again', content: 'two\n', sha: gitBlobSha(Buffer.from('x')) }));
    expect(stale.status).toBe(409);
    const updated = await client.putFile({ owner: 'octo', repo: 'notes', path, branch: 'main', message: 'update', content: 'two\n', sha: created.contentSha });
    expect(emulator.file('octo', 'notes', path)).toBe('two\n');
    expect(await client.latestCommitForPath('octo', 'notes', path, 'main')).toEqual({ sha: updated.commitSha, htmlUrl: updated.commitHtmlUrl, message: 'update' });
    expect(await client.latestCommitForPath('octo', 'notes', 'nothing.md', 'main')).toBeNull();
  });

  it('pages through starred repositories with Link headers', async () => {
    const names = Array.from({ length: 230 }, (_, i) => `lib-${i}`);
    for (const n of names) emulator.addRepo('upstream', n, { language: 'TypeScript', stars: 5, topics: ['learning'] });
    emulator.addStarred(token, names.map((n) => `upstream/${n}`));
    const before = emulator.requests('GET /user/starred');
    const starred = await client.listStarred();
    expect(starred).toHaveLength(230);
    expect(starred[0]).toEqual({ fullName: 'upstream/lib-0', htmlUrl: `${EMULATOR_HTML_BASE}/upstream/lib-0`, description: null, language: 'TypeScript', stargazers: 5, topics: ['learning'] });
    expect(emulator.requests('GET /user/starred') - before).toBe(3); // 100 + 100 + 30
    expect(await client.listStarred({ max: 150 })).toHaveLength(150);
    const res = await fetch(`${emulator.url}/user/starred?per_page=100&page=2`, { headers: { authorization: `token ${token}` } });
    expect(res.headers.get('link')).toMatch(/page=3>; rel="next".*page=3>; rel="last"/);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('x-ratelimit-resource')).toBe('core');
  });

  it('answers 401 for a bad token and 404 for a private repository the token cannot see', async () => {
    const bad = await (await factory()('ghp_wrong')).getAuthenticatedUser().catch((e: GithubRequestError) => e);
    expect((bad as GithubRequestError).status).toBe(401);
    emulator.addRepo('someone', 'secret', { private: true });
    expect((await failure(client.getRepository('someone', 'secret'))).status).toBe(404);
  });
});

describe('GitHub error classes (SAN-10)', () => {
  const NOW = 1_800_000_000_000;
  const err = (status: number, headers: Record<string, string> = {}, message = 'boom') =>
    Object.assign(new Error(message), { name: 'HttpError', status, response: { headers }, request: { method: 'PUT', url: 'https://api.github.com/repos/o/r/contents/a.md' } }) as GithubRequestError;

  it.each([
    [401, {}, 'GITHUB_UNAUTHORIZED', false],
    [403, {}, 'GITHUB_FORBIDDEN', false],
    [404, {}, 'GITHUB_NOT_FOUND', false],
    [409, {}, 'GITHUB_CONFLICT', true],
    [422, {}, 'GITHUB_CONFLICT', true],
    [500, {}, 'GITHUB_UNAVAILABLE', true],
    [502, {}, 'GITHUB_UNAVAILABLE', true],
    [400, {}, 'GITHUB_REJECTED', false],
  ] as const)('%i → %s', (status, headers, type, retryable) => {
    expect(classifyGithubError(err(status, headers), NOW)).toMatchObject({ type, retryable, status });
  });

  it('rate limits wait as long as GitHub asks', () => {
    expect(classifyGithubError(err(429, { 'retry-after': '7' }), NOW)).toMatchObject({ type: 'GITHUB_RATE_LIMITED', retryable: true, retryAfterMs: 7000 });
    expect(classifyGithubError(err(403, { 'retry-after': '30' }), NOW)).toMatchObject({ type: 'GITHUB_RATE_LIMITED', retryAfterMs: 30_000 });
    const reset = String(NOW / 1000 + 42);
    expect(classifyGithubError(err(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }), NOW)).toMatchObject({ type: 'GITHUB_RATE_LIMITED', retryAfterMs: 42_000 });
    expect(classifyGithubError(err(403, {}, 'You have exceeded a secondary rate limit'), NOW)).toMatchObject({ type: 'GITHUB_RATE_LIMITED', retryAfterMs: 60_000 });
  });

  it('becomes an ApplicationFailure with a RequestError cause and nextRetryDelay', () => {
    const f = toGithubFailure(err(429, { 'retry-after': '3' }), NOW) as ApplicationFailure;
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect([f.type, f.nonRetryable, f.nextRetryDelay]).toEqual(['GITHUB_RATE_LIMITED', false, 3000]);
    expect((f.cause as ApplicationFailure).type).toBe('RequestError');
    const terminal = toGithubFailure(err(401), NOW) as ApplicationFailure;
    expect([terminal.type, terminal.nonRetryable]).toEqual(['GITHUB_UNAUTHORIZED', true]);
    const other = new Error('socket hang up');
    expect(toGithubFailure(other, NOW)).toBe(other);
  });
});

describe('encodeContentPath', () => {
  it('percent-encodes each segment for the contents API, keeping the slashes', () => {
    expect(encodeContentPath('til/2026-11-30-한글 제목.md')).toBe('til/2026-11-30-%ED%95%9C%EA%B8%80%20%EC%A0%9C%EB%AA%A9.md');
    expect(encodeContentPath('a/b#c?d.md')).toBe('a/b%23c%3Fd.md');
  });
});
