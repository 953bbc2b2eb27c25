/**
 * The GitHub emulator's self-service tokens (what `npm run demo -- --keep` offers a second user):
 * `ghemu_<login>` signs in as <login> with a repository <login>/til it may push to, through the
 * project's own Octokit adapter; without the option such tokens are refused like any unknown one.
 */
import { octokitClientFactory, type GithubRequestError } from '../../../src/github/client';
import { selfServiceToken, startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';

let open: GithubEmulator;
let closed: GithubEmulator;

beforeAll(async () => {
  [open, closed] = await Promise.all([startGithubEmulator({ selfServiceTokens: true }), startGithubEmulator()]);
});
afterAll(async () => Promise.all([open?.close(), closed?.close()]));

const clientOf = (emulator: GithubEmulator, token: string) => octokitClientFactory({ baseUrl: emulator.url, timeoutMs: 5000 })(token);
const statusOf = (p: Promise<unknown>) => p.then(() => 'ok', (err: GithubRequestError) => err.status);

it('signs in ghemu_<login> as <login>, each with a repository <login>/til it may push to and others may not', async () => {
  const alice = await clientOf(open, selfServiceToken('alice'));
  const bob = await clientOf(open, selfServiceToken('Bob-2'));
  const [a, b] = [await alice.getAuthenticatedUser(), await bob.getAuthenticatedUser()];
  expect([a.login, b.login]).toEqual(['alice', 'Bob-2']);
  expect(a.id).not.toBe(b.id);
  expect(await alice.getRepository('alice', 'til')).toEqual({ fullName: 'alice/til', defaultBranch: 'main', private: false, canPush: true });
  expect(await bob.getRepository('alice', 'til')).toMatchObject({ canPush: false });
  const put = await alice.putFile({ owner: 'alice', repo: 'til', path: 'til/2026-12-01-x.md', branch: 'main', message: 'TIL', content: '# x\n' });
  expect(open.file('alice', 'til', 'til/2026-12-01-x.md')).toBe('# x\n');
  expect(put.commitSha).toMatch(/^[0-9a-f]{40}$/);
  expect(await statusOf(bob.putFile({ owner: 'alice', repo: 'til', path: 'til/y.md', branch: 'main', message: 'no', content: 'y' }))).toBe(403);
  // the same token again is the same account, with the repository it already has
  expect(await (await clientOf(open, selfServiceToken('alice'))).getAuthenticatedUser()).toEqual(a);
  expect(open.files('alice', 'til')).toEqual(['til/2026-12-01-x.md']);
});

it('refuses malformed and revoked self-service tokens, and every ghemu_ token without the option', async () => {
  expect(() => selfServiceToken('-bad')).toThrow('not a GitHub login');
  expect(await statusOf((await clientOf(open, 'ghemu_-bad')).getAuthenticatedUser())).toBe(401);
  expect(await statusOf((await clientOf(open, `ghemu_${'a'.repeat(40)}`)).getAuthenticatedUser())).toBe(401);
  const carol = selfServiceToken('carol');
  expect((await (await clientOf(open, carol)).getAuthenticatedUser()).login).toBe('carol');
  open.revokeToken(carol);
  expect(await statusOf((await clientOf(open, carol)).getAuthenticatedUser())).toBe(401);
  expect(await statusOf((await clientOf(closed, selfServiceToken('alice'))).getAuthenticatedUser())).toBe(401);
});
