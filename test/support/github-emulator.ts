/**
 * A local GitHub REST emulator (node:http on 127.0.0.1, a free port) with GitHub's own semantics
 * for the routes this project calls (SAN-10, SAN-12): `GET /user`, `GET /repos/{o}/{r}`, contents
 * GET/PUT (git blob shas, "sha wasn't supplied" 422, stale-sha 409), `GET /repos/{o}/{r}/commits`,
 * `GET /repos/{o}/{r}/branches/{branch}` (404 "Branch not found" for a missing or still empty branch),
 * `GET /user/starred` with RFC 5988 `Link` pagination, rate-limit headers on every answer, per-token
 * auth. Tests inject faults (`failNext`) and run code after an accepted PUT (`afterPut`). With
 * `selfServiceTokens` (the demo) any token `ghemu_<login>` is also accepted: see
 * {@link SELF_SERVICE_TOKEN_PREFIX}.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fault answered instead of the real response. */
export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Which requests a fault applies to (default: any). */
export interface FaultMatch {
  method?: string;
  /** Route key, e.g. `PUT /repos/{o}/{r}/contents/{path}`. */
  route?: string;
}

/** What an after-PUT hook sees; return `'drop'` to destroy the connection instead of answering. */
export interface PutEvent {
  owner: string;
  repo: string;
  path: string;
  branch: string;
  commitSha: string;
  created: boolean;
}

interface FileEntry {
  content: Buffer;
  sha: string;
}
interface CommitEntry {
  sha: string;
  message: string;
  paths: string[];
  date: string;
}
interface RepoEntry {
  owner: string;
  name: string;
  private: boolean;
  defaultBranch: string;
  pushers: Set<string>;
  readers: Set<string>;
  branches: Map<string, { files: Map<string, FileEntry>; commits: CommitEntry[] }>;
  description: string | null;
  language: string | null;
  stars: number;
  topics: string[];
}

/** The running emulator. */
export interface GithubEmulator {
  url: string;
  /** Adds a user; returns its token. */
  addUser(login: string): string;
  /** Revokes a token (later requests: 401 Bad credentials). */
  revokeToken(token: string): void;
  /** Adds a repository; `owner` (a login) may push, `collaborators` too; `readers` may only read. */
  addRepo(owner: string, name: string, opts?: { private?: boolean; defaultBranch?: string; collaborators?: string[]; readers?: string[]; description?: string; language?: string; stars?: number; topics?: string[] }): void;
  /** Adds a branch starting at the head of `from` (default: the default branch), like `git branch`. */
  addBranch(owner: string, name: string, branch: string, from?: string): void;
  /** Writes a file as one commit (test setup). */
  seedFile(owner: string, name: string, path: string, content: string, branch?: string): void;
  /** A file's text, or undefined. */
  file(owner: string, name: string, path: string, branch?: string): string | undefined;
  /** Paths of the files on a branch. */
  files(owner: string, name: string, branch?: string): string[];
  /** Commits on a branch, newest first. */
  commits(owner: string, name: string, branch?: string): { sha: string; message: string; paths: string[] }[];
  /** SAN-12 seeding: the repositories a token's user has starred (must exist as repos), newest first. */
  addStarred(token: string, repos: string[]): void;
  /** Answers the next `n` matching requests with `fault` instead of the real response. */
  failNext(n: number, fault: Fault, match?: FaultMatch): void;
  /** Runs after a PUT was applied, before the answer is sent (crash simulation). */
  afterPut(hook: ((e: PutEvent) => Promise<void | 'drop'> | void | 'drop') | undefined): void;
  /** Requests per route key (`GET /user`, `PUT /repos/{o}/{r}/contents/{path}` …). */
  requests(route?: string): number;
  /** Every request seen, in order (method, route key, raw URL, authorization scheme only). */
  log: { method: string; route: string; url: string }[];
  close(): Promise<void>;
}

const RATE_LIMIT = 5000;

/**
 * With `startGithubEmulator({ selfServiceTokens: true })`, a token `ghemu_<login>` (login in
 * GitHub's syntax: letters, digits, single inner hyphens, at most 39) that no user holds signs in
 * as `<login>`: the account and a public repository `<login>/til` it may push to are created on
 * first use. So the demo can hand out any number of GitHub accounts without a registry of tokens.
 */
export const SELF_SERVICE_TOKEN_PREFIX = 'ghemu_';
const SELF_SERVICE_TOKEN = /^ghemu_([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})$/;

/** The self-service token of `login` (see {@link SELF_SERVICE_TOKEN_PREFIX}). */
export function selfServiceToken(login: string): string {
  const token = `${SELF_SERVICE_TOKEN_PREFIX}${login}`;
  if (!SELF_SERVICE_TOKEN.test(token)) throw new Error(`not a GitHub login: ${JSON.stringify(login)}`);
  return token;
}

/** git's blob id of `content`: sha1("blob <len>\0" + content). */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

class HttpFail extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}
const docs = 'https://docs.github.com/rest';
const notFound = () => new HttpFail(404, { message: 'Not Found', documentation_url: docs, status: '404' });

/** The web host of the emulator's `html_url`s unless told otherwise: a reserved `.invalid` name (RFC 6761), never mistaken for github.com. */
export const EMULATOR_HTML_BASE = 'https://github.emulator.invalid';

/**
 * Starts the emulator; `htmlBase` is the web host used in `html_url`s (default EMULATOR_HTML_BASE); `selfServiceTokens` also
 * accepts `ghemu_<login>` tokens (see {@link SELF_SERVICE_TOKEN_PREFIX}; default false).
 */
export async function startGithubEmulator(opts: { htmlBase?: string; selfServiceTokens?: boolean } = {}): Promise<GithubEmulator> {
  const htmlBase = opts.htmlBase ?? EMULATOR_HTML_BASE;
  const users = new Map<string, { login: string; id: number }>();
  const ids = new Map<string, number>();
  const idOf = (login: string) => {
    let id = ids.get(login.toLowerCase());
    if (id === undefined) ids.set(login.toLowerCase(), (id = ids.size + 1000));
    return id;
  };
  const revoked = new Set<string>();
  const repos = new Map<string, RepoEntry>();
  const starred = new Map<string, string[]>();
  const faults: { left: number; fault: Fault; match: FaultMatch }[] = [];
  const counts = new Map<string, number>();
  const usage = new Map<string, number>();
  const log: GithubEmulator['log'] = [];
  let hook: ((e: PutEvent) => Promise<void | 'drop'> | void | 'drop') | undefined;
  let commitCounter = 0;
  const resetAt = Math.floor(Date.now() / 1000) + 3600;

  const repoKey = (o: string, r: string) => `${o.toLowerCase()}/${r.toLowerCase()}`;
  const getRepo = (o: string, r: string) => repos.get(repoKey(o, r));
  const branchOf = (repo: RepoEntry, branch?: string) => repo.branches.get(branch ?? repo.defaultBranch);

  function commit(repo: RepoEntry, branch: string, message: string, changes: { path: string; content: Buffer }[]): CommitEntry {
    const b = repo.branches.get(branch);
    if (!b) throw new Error(`no branch ${branch}`);
    commitCounter += 1;
    const parent = b.commits[b.commits.length - 1]?.sha ?? '';
    const sha = createHash('sha1').update(`commit ${parent} ${commitCounter} ${message} ${randomBytes(4).toString('hex')}`).digest('hex');
    for (const ch of changes) b.files.set(ch.path, { content: ch.content, sha: gitBlobSha(ch.content) });
    const entry = { sha, message, paths: changes.map((c) => c.path), date: new Date().toISOString() };
    b.commits.push(entry);
    return entry;
  }

  const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  const repoJson = (repo: RepoEntry, login?: string) => ({
    id: Number.parseInt(createHash('sha1').update(repoKey(repo.owner, repo.name)).digest('hex').slice(0, 8), 16),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: { login: repo.owner },
    private: repo.private,
    html_url: `${htmlBase}/${repo.owner}/${repo.name}`,
    description: repo.description,
    language: repo.language,
    stargazers_count: repo.stars,
    topics: repo.topics,
    default_branch: repo.defaultBranch,
    ...(login ? { permissions: { admin: repo.owner === login, push: repo.pushers.has(login), pull: true } } : {}),
  });

  function authenticate(req: IncomingMessage): { login: string; token: string } {
    const h = req.headers.authorization;
    const m = h ? /^(?:token|bearer)\s+(\S+)$/i.exec(h) : null;
    if (!m?.[1]) throw new HttpFail(401, { message: 'Requires authentication', documentation_url: docs, status: '401' });
    const selfService = opts.selfServiceTokens && !users.has(m[1]) ? SELF_SERVICE_TOKEN.exec(m[1])?.[1] : undefined;
    if (selfService) {
      users.set(m[1], { login: selfService, id: idOf(selfService) });
      if (!getRepo(selfService, 'til')) emulator.addRepo(selfService, 'til', { description: 'Today I learned' });
    }
    const user = users.get(m[1]);
    if (!user || revoked.has(m[1])) throw new HttpFail(401, { message: 'Bad credentials', documentation_url: docs, status: '401' });
    return { login: user.login, token: m[1] };
  }

  function visibleRepo(o: string, r: string, login: string): RepoEntry {
    const repo = getRepo(o, r);
    if (!repo) throw notFound();
    if (repo.private && !repo.pushers.has(login) && !repo.readers.has(login)) throw notFound();
    return repo;
  }

  async function readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new HttpFail(400, { message: 'Problems parsing JSON', documentation_url: docs, status: '400' });
    }
  }

  function route(method: string, pathname: string): { key: string; params: string[] } {
    const seg = pathname.split('/').slice(1);
    if (pathname === '/user') return { key: `${method} /user`, params: [] };
    if (pathname === '/user/starred') return { key: `${method} /user/starred`, params: [] };
    if (seg[0] === 'repos' && seg.length === 3) return { key: `${method} /repos/{o}/{r}`, params: [seg[1]!, seg[2]!] };
    if (seg[0] === 'repos' && seg.length === 4 && seg[3] === 'commits') return { key: `${method} /repos/{o}/{r}/commits`, params: [seg[1]!, seg[2]!] };
    if (seg[0] === 'repos' && seg.length >= 5 && seg[3] === 'branches') {
      // GitHub takes a branch with slashes either raw (`feature/x`) or encoded (`feature%2Fx`).
      return { key: `${method} /repos/{o}/{r}/branches/{branch}`, params: [seg[1]!, seg[2]!, seg.slice(4).map((s) => decodeURIComponent(s)).join('/')] };
    }
    if (seg[0] === 'repos' && seg.length >= 4 && seg[3] === 'contents') {
      // Each segment decoded: `a/b%20c.md` and `a%2Fb%20c.md` name the same file, as on GitHub.
      const path = seg.slice(4).map((s) => decodeURIComponent(s)).join('/');
      return { key: `${method} /repos/{o}/{r}/contents/{path}`, params: [seg[1]!, seg[2]!, path] };
    }
    return { key: `${method} ${pathname}`, params: [] };
  }

  async function handle(req: IncomingMessage, url: URL, key: string, params: string[]): Promise<{ status: number; body: unknown; headers?: Record<string, string> } | 'drop'> {
    const me = authenticate(req);
    if (key === 'GET /user') {
      const u = users.get(me.token)!;
      return { status: 200, body: { login: u.login, id: u.id, type: 'User', html_url: `${htmlBase}/${u.login}` } };
    }
    if (key === 'GET /user/starred') {
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const all = (starred.get(me.token) ?? []).map((k) => repos.get(k)).filter((r): r is RepoEntry => r !== undefined && (!r.private || r.pushers.has(me.login) || r.readers.has(me.login)));
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number) => {
        const u = new URL(url.toString());
        u.searchParams.set('per_page', String(perPage));
        u.searchParams.set('page', String(p));
        return `<${u.toString()}>`;
      };
      const rels: string[] = [];
      if (page > 1) rels.push(`${link(page - 1)}; rel="prev"`);
      if (page < last) rels.push(`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`);
      if (page > 1) rels.push(`${link(1)}; rel="first"`);
      return { status: 200, body: all.slice((page - 1) * perPage, page * perPage).map((r) => repoJson(r)), headers: rels.length ? { link: rels.join(', ') } : {} };
    }
    const [o, r, path] = params;
    if (key === 'GET /repos/{o}/{r}') return { status: 200, body: repoJson(visibleRepo(o!, r!, me.login), me.login) };
    if (key === 'GET /repos/{o}/{r}/commits') {
      const repo = visibleRepo(o!, r!, me.login);
      const b = branchOf(repo, url.searchParams.get('sha') ?? undefined);
      if (!b) throw new HttpFail(404, { message: 'No commit found for SHA: ' + url.searchParams.get('sha'), documentation_url: docs, status: '404' });
      const filter = url.searchParams.get('path');
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const list = [...b.commits].reverse().filter((c) => !filter || c.paths.includes(filter.replace(/^\/+/, '')));
      return {
        status: 200,
        body: list.slice((page - 1) * perPage, page * perPage).map((c) => ({
          sha: c.sha,
          html_url: `${htmlBase}/${repo.owner}/${repo.name}/commit/${c.sha}`,
          commit: { message: c.message, author: { name: 'emulator', email: 'e@example.com', date: c.date }, committer: { name: 'emulator', email: 'e@example.com', date: c.date } },
        })),
      };
    }
    if (key === 'GET /repos/{o}/{r}/branches/{branch}') {
      const repo = visibleRepo(o!, r!, me.login);
      const head = repo.branches.get(path!)?.commits.at(-1);
      if (!head) throw new HttpFail(404, { message: 'Branch not found', documentation_url: docs, status: '404' });
      return {
        status: 200,
        body: {
          name: path,
          commit: { sha: head.sha, url: `${url.origin}/repos/${repo.owner}/${repo.name}/commits/${head.sha}` },
          protected: false,
          _links: { html: `${htmlBase}/${repo.owner}/${repo.name}/tree/${encodePath(path!)}` },
        },
      };
    }
    if (key === 'GET /repos/{o}/{r}/contents/{path}') {
      const repo = visibleRepo(o!, r!, me.login);
      const ref = url.searchParams.get('ref') ?? undefined;
      const b = branchOf(repo, ref);
      if (!b) throw new HttpFail(404, { message: `No commit found for the ref ${ref}`, documentation_url: docs, status: '404' });
      const f = b.files.get(path!);
      if (!f) {
        const prefix = path === '' ? '' : `${path}/`;
        const children = [...b.files.keys()].filter((p) => p.startsWith(prefix));
        if (children.length === 0) throw notFound();
        return { status: 200, body: [...new Set(children.map((p) => p.slice(prefix.length).split('/')[0]!))].map((name) => ({ name, path: prefix + name, type: 'file' })) };
      }
      const name = path!.split('/').pop()!;
      return {
        status: 200,
        body: {
          type: 'file', encoding: 'base64', size: f.content.length, name, path, sha: f.sha,
          content: f.content.toString('base64').replace(/(.{60})/g, '$1\n'),
          html_url: `${htmlBase}/${repo.owner}/${repo.name}/blob/${ref ?? repo.defaultBranch}/${encodePath(path!)}`,
        },
      };
    }
    if (key === 'PUT /repos/{o}/{r}/contents/{path}') {
      const repo = visibleRepo(o!, r!, me.login);
      if (!repo.pushers.has(me.login)) throw new HttpFail(403, { message: 'Resource not accessible by personal access token', documentation_url: docs, status: '403' });
      const body = (await readBody(req)) as { message?: unknown; content?: unknown; branch?: unknown; sha?: unknown };
      if (typeof body.message !== 'string' || typeof body.content !== 'string') {
        throw new HttpFail(422, { message: 'Invalid request.\n\n"message" and "content" are required.', documentation_url: docs, status: '422' });
      }
      const branch = typeof body.branch === 'string' ? body.branch : repo.defaultBranch;
      const b = repo.branches.get(branch);
      if (!b) throw new HttpFail(404, { message: `Branch ${branch} not found`, documentation_url: docs, status: '404' });
      const existing = b.files.get(path!);
      if (existing && typeof body.sha !== 'string') {
        throw new HttpFail(422, { message: 'Invalid request.\n\n"sha" wasn\'t supplied.', documentation_url: docs, status: '422' });
      }
      if (existing && body.sha !== existing.sha) {
        throw new HttpFail(409, { message: `${path} does not match ${String(body.sha)}`, documentation_url: docs, status: '409' });
      }
      const c = commit(repo, branch, body.message, [{ path: path!, content: Buffer.from(body.content, 'base64') }]);
      const f = b.files.get(path!)!;
      const out = {
        status: existing ? 200 : 201,
        body: {
          content: {
            name: path!.split('/').pop(), path, sha: f.sha, size: f.content.length, type: 'file',
            html_url: `${htmlBase}/${repo.owner}/${repo.name}/blob/${branch}/${encodePath(path!)}`,
          },
          commit: { sha: c.sha, html_url: `${htmlBase}/${repo.owner}/${repo.name}/commit/${c.sha}`, message: c.message },
        },
      };
      if (hook && (await hook({ owner: repo.owner, repo: repo.name, path: path!, branch, commitSha: c.sha, created: !existing })) === 'drop') return 'drop';
      return out;
    }
    throw notFound();
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const method = req.method ?? 'GET';
    const { key, params } = route(method, url.pathname);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    log.push({ method, route: key, url: req.url ?? '' });
    const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? 'anonymous';
    const used = (usage.get(token) ?? 0) + 1;
    usage.set(token, used);
    const rate: Record<string, string> = {
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(Math.max(0, RATE_LIMIT - used)),
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-used': String(used),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
    };
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...rate, ...headers });
      res.end(status === 204 ? undefined : JSON.stringify(body));
    };
    const fi = faults.findIndex((f) => (!f.match.method || f.match.method === method) && (!f.match.route || f.match.route === key));
    if (fi >= 0) {
      const f = faults[fi]!;
      f.left -= 1;
      if (f.left <= 0) faults.splice(fi, 1);
      req.resume();
      answer(f.fault.status, f.fault.body ?? { message: `emulated ${f.fault.status}`, documentation_url: docs, status: String(f.fault.status) }, f.fault.headers);
      return;
    }
    handle(req, url, key, params).then(
      (out) => {
        if (out === 'drop') res.destroy();
        else answer(out.status, out.body, out.headers);
      },
      (err: unknown) => {
        if (err instanceof HttpFail) answer(err.status, err.body);
        else answer(500, { message: `emulator error: ${String(err)}` });
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const emulator: GithubEmulator = {
    url: `http://127.0.0.1:${port}`,
    log,
    addUser(login) {
      const token = `ghp_${randomBytes(18).toString('base64url')}`;
      users.set(token, { login, id: idOf(login) });
      return token;
    },
    revokeToken(token) {
      revoked.add(token);
    },
    addRepo(owner, name, o = {}) {
      const defaultBranch = o.defaultBranch ?? 'main';
      repos.set(repoKey(owner, name), {
        owner, name, private: o.private ?? false, defaultBranch,
        pushers: new Set([owner, ...(o.collaborators ?? [])]),
        readers: new Set(o.readers ?? []),
        branches: new Map([[defaultBranch, { files: new Map(), commits: [] }]]),
        description: o.description ?? null, language: o.language ?? null, stars: o.stars ?? 0, topics: o.topics ?? [],
      });
    },
    addBranch(owner, name, branch, from) {
      const repo = getRepo(owner, name);
      const base = repo && branchOf(repo, from);
      if (!repo || !base) throw new Error(`no repo ${owner}/${name} or branch ${from ?? '(default)'}`);
      repo.branches.set(branch, { files: new Map(base.files), commits: [...base.commits] });
    },
    seedFile(owner, name, path, content, branch) {
      const repo = getRepo(owner, name);
      if (!repo) throw new Error(`no repo ${owner}/${name}`);
      commit(repo, branch ?? repo.defaultBranch, `seed ${path}`, [{ path, content: Buffer.from(content, 'utf8') }]);
    },
    file(owner, name, path, branch) {
      const repo = getRepo(owner, name);
      return repo ? branchOf(repo, branch)?.files.get(path)?.content.toString('utf8') : undefined;
    },
    files(owner, name, branch) {
      const repo = getRepo(owner, name);
      return repo ? [...(branchOf(repo, branch)?.files.keys() ?? [])] : [];
    },
    commits(owner, name, branch) {
      const repo = getRepo(owner, name);
      return repo ? [...(branchOf(repo, branch)?.commits ?? [])].reverse().map(({ sha, message, paths }) => ({ sha, message, paths })) : [];
    },
    addStarred(token, list) {
      for (const full of list) if (!repos.has(full.toLowerCase())) throw new Error(`no repo ${full}`);
      starred.set(token, [...list.map((s) => s.toLowerCase()), ...(starred.get(token) ?? [])]);
    },
    failNext(n, fault, match = {}) {
      faults.push({ left: n, fault, match });
    },
    afterPut(fn) {
      hook = fn;
    },
    requests(r) {
      if (r === undefined) return [...counts.values()].reduce((a, b) => a + b, 0);
      return counts.get(r) ?? 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return emulator;
}
