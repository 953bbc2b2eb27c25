/**
 * GitHub boundary (SAN-10, SAN-12): a small {@link GithubClient} interface, its Octokit adapter and
 * the classification of GitHub errors into Temporal retry classes. Octokit is ESM-only and this
 * project compiles to CommonJS, so it is loaded once by dynamic `import()`. The adapter never
 * retries (`@octokit/rest` carries no retry or throttling plugin): Temporal owns retries.
 */
import type { Octokit } from '@octokit/rest' with { 'resolution-mode': 'import' };
import type { CoreConfig as Config } from '../config';

/**
 * Encodes a repository path for `/repos/{o}/{r}/contents/{path}`: each segment percent-encoded
 * (UTF-8), the `/` separators kept.
 */
export function encodeContentPath(path: string): string {
  return path.split('/').map((s) => encodeURIComponent(s)).join('/');
}

/** A file read through the contents API: blob `sha` and its UTF-8 text. */
export interface GithubFile {
  sha: string;
  content: string;
}

/** Arguments of {@link GithubClient.putFile}; `sha` is required by GitHub when the file exists. */
export interface PutFileArgs {
  owner: string;
  repo: string;
  path: string;
  branch: string;
  message: string;
  content: string;
  sha?: string;
}

/** Result of a contents PUT: the new commit and the file's blob. */
export interface PutFileResult {
  commitSha: string;
  commitHtmlUrl: string;
  contentSha: string;
  fileHtmlUrl: string;
}

/** A commit touching a path. */
export interface GithubCommitRef {
  sha: string;
  htmlUrl: string;
  message: string;
}

/** A repository as seen by the token: default branch and whether it may push. */
export interface GithubRepo {
  fullName: string;
  defaultBranch: string;
  private: boolean;
  canPush: boolean;
}

/** A starred repository (SAN-12). */
export interface StarredRepo {
  fullName: string;
  htmlUrl: string;
  description: string | null;
  language: string | null;
  stargazers: number;
  topics: string[];
}

/** What the service asks of GitHub, per access token. */
export interface GithubClient {
  /** `GET /user`: the token's login. */
  getAuthenticatedUser(): Promise<{ login: string; id: number }>;
  /** `GET /repos/{owner}/{repo}`. */
  getRepository(owner: string, repo: string): Promise<GithubRepo>;
  /** `GET /repos/{o}/{r}/branches/{branch}`: the branch and its head commit, or null on 404 (no such branch, or a repository the token cannot see). */
  getBranch(owner: string, repo: string, branch: string): Promise<{ name: string; sha: string } | null>;
  /** `GET /repos/{o}/{r}/contents/{path}?ref=`: the file, or null when missing (404). Directories count as present. */
  getFile(owner: string, repo: string, path: string, ref: string): Promise<GithubFile | null>;
  /** `PUT /repos/{o}/{r}/contents/{path}`: creates (no sha) or updates (sha) a file, one commit. */
  putFile(args: PutFileArgs): Promise<PutFileResult>;
  /** `GET /repos/{o}/{r}/commits?path=&sha=`: the newest commit touching `path` on `branch`, or null. */
  latestCommitForPath(owner: string, repo: string, path: string, branch: string): Promise<GithubCommitRef | null>;
  /** `GET /user/starred`, every page (SAN-12); `max` caps the total. */
  listStarred(opts?: { max?: number }): Promise<StarredRepo[]>;
}

/** Builds a client for one access token; `signal` aborts its in-flight requests. */
export type GithubClientFactory = (token: string, signal?: AbortSignal) => Promise<GithubClient>;

/** Options of the Octokit adapter. */
export interface OctokitClientOptions {
  baseUrl: string;
  timeoutMs: number;
  userAgent?: string;
}

type OctokitModule = typeof import('@octokit/rest', { with: { 'resolution-mode': 'import' } });
let octokitModule: Promise<OctokitModule> | undefined;
function loadOctokit(): Promise<OctokitModule> {
  octokitModule ??= import('@octokit/rest');
  return octokitModule;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Returns a {@link GithubClientFactory} over Octokit with `baseUrl` from config (GITHUB_API_URL). */
export function octokitClientFactory(opts: OctokitClientOptions): GithubClientFactory {
  return async (token, signal) => {
    const { Octokit: OctokitCtor } = await loadOctokit();
    const octokit = new OctokitCtor({ auth: token, baseUrl: opts.baseUrl, userAgent: opts.userAgent ?? 'durable-jobs', log: silent });
    return createOctokitClient(octokit, opts.timeoutMs, signal);
  };
}

/** The Octokit client factory configured by GITHUB_API_URL and GITHUB_REQUEST_TIMEOUT_MS. */
export function githubClientFactoryFromConfig(config: Config): GithubClientFactory {
  return octokitClientFactory({ baseUrl: config.github.apiUrl, timeoutMs: config.github.requestTimeoutMs });
}

function createOctokitClient(octokit: Octokit, timeoutMs: number, signal?: AbortSignal): GithubClient {
  const requestOptions = (): { signal: AbortSignal } => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return { signal: signal ? AbortSignal.any([signal, timeout]) : timeout };
  };
  const contentsRoute = (method: 'GET' | 'PUT', path: string) => `${method} /repos/{owner}/{repo}/contents/${encodeContentPath(path)}`;
  return {
    async getAuthenticatedUser() {
      const { data } = await octokit.request('GET /user', { request: requestOptions() });
      return { login: data.login, id: Number(data.id) };
    },

    async getRepository(owner, repo) {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}', { owner, repo, request: requestOptions() });
      return {
        fullName: data.full_name,
        defaultBranch: data.default_branch,
        private: data.private,
        canPush: data.permissions?.push ?? false,
      };
    },

    async getBranch(owner, repo, branch) {
      try {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/branches/{branch}', { owner, repo, branch, request: requestOptions() });
        return { name: data.name, sha: data.commit.sha };
      } catch (err) {
        if (isRequestError(err) && err.status === 404) return null;
        throw err;
      }
    },

    async getFile(owner, repo, path, ref) {
      try {
        const { data } = await octokit.request(contentsRoute('GET', path), { owner, repo, ref, request: requestOptions() });
        if (Array.isArray(data)) return { sha: '', content: '' };
        const file = data as { sha: string; content?: string; encoding?: string };
        const content = file.encoding === 'base64' && file.content !== undefined ? Buffer.from(file.content, 'base64').toString('utf8') : (file.content ?? '');
        return { sha: file.sha, content };
      } catch (err) {
        if (isRequestError(err) && err.status === 404) return null;
        throw err;
      }
    },

    async putFile(args) {
      const { data } = await octokit.request(contentsRoute('PUT', args.path), {
        owner: args.owner,
        repo: args.repo,
        message: args.message,
        content: Buffer.from(args.content, 'utf8').toString('base64'),
        branch: args.branch,
        ...(args.sha ? { sha: args.sha } : {}),
        request: requestOptions(),
      });
      const body = data as { content?: { sha?: string; html_url?: string }; commit?: { sha?: string; html_url?: string } };
      if (!body.commit?.sha || !body.content?.sha) throw new Error('GitHub answered a contents PUT without commit or content sha');
      return {
        commitSha: body.commit.sha,
        commitHtmlUrl: body.commit.html_url ?? '',
        contentSha: body.content.sha,
        fileHtmlUrl: body.content.html_url ?? '',
      };
    },

    async latestCommitForPath(owner, repo, path, branch) {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/commits', {
        owner, repo, path, sha: branch, per_page: 1, request: requestOptions(),
      });
      const c = data[0];
      return c ? { sha: c.sha, htmlUrl: c.html_url, message: c.commit.message } : null;
    },

    async listStarred(o = {}) {
      const max = o.max ?? Number.POSITIVE_INFINITY;
      const out: StarredRepo[] = [];
      const params = { per_page: 100, request: requestOptions() };
      for await (const page of octokit.paginate.iterator('GET /user/starred', params)) {
        for (const r of page.data as { full_name: string; html_url: string; description: string | null; language?: string | null; stargazers_count: number; topics?: string[] }[]) {
          out.push({
            fullName: r.full_name,
            htmlUrl: r.html_url,
            description: r.description,
            language: r.language ?? null,
            stargazers: r.stargazers_count,
            topics: r.topics ?? [],
          });
          if (out.length >= max) return out;
        }
      }
      return out;
    },
  };
}

/** Octokit's RequestError (its `name` is `HttpError`), recognised structurally: the class lives in an ESM module. */
export interface GithubRequestError extends Error {
  status: number;
  response?: { headers: Record<string, string | number | undefined>; data?: unknown };
  request?: { method?: string; url?: string };
}

/** True for Octokit's RequestError. */
export function isRequestError(err: unknown): err is GithubRequestError {
  return err instanceof Error && err.name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number';
}

/** Failure types of a classified GitHub error. */
export type GithubFailureType =
  | 'GITHUB_UNAUTHORIZED'
  | 'GITHUB_FORBIDDEN'
  | 'GITHUB_NOT_FOUND'
  | 'GITHUB_RATE_LIMITED'
  | 'GITHUB_CONFLICT'
  | 'GITHUB_UNAVAILABLE'
  | 'GITHUB_REJECTED';

/** Retry class of a GitHub error (SAN-10). */
export interface GithubErrorClass {
  retryable: boolean;
  /** Stable failure type: GITHUB_UNAUTHORIZED, GITHUB_FORBIDDEN, GITHUB_NOT_FOUND, GITHUB_RATE_LIMITED, GITHUB_CONFLICT, GITHUB_UNAVAILABLE, GITHUB_REJECTED. */
  type: GithubFailureType;
  status: number;
  /** Delay GitHub asked for (Retry-After, or x-ratelimit-reset − now), in ms. */
  retryAfterMs?: number;
  message: string;
}

const header = (err: GithubRequestError, name: string): string | undefined => {
  const v = err.response?.headers?.[name];
  return v === undefined ? undefined : String(v);
};

/**
 * Classifies an Octokit RequestError (SAN-10): 401 → GITHUB_UNAUTHORIZED, 403 that is not a rate
 * limit → GITHUB_FORBIDDEN, 404 → GITHUB_NOT_FOUND (all terminal); 429 and 403 rate limits →
 * GITHUB_RATE_LIMITED with the delay GitHub asks for; 409/422 (stale or missing sha) →
 * GITHUB_CONFLICT; 5xx and network failures → GITHUB_UNAVAILABLE (retryable); other 4xx →
 * GITHUB_REJECTED (terminal). `now` in ms since the epoch.
 */
export function classifyGithubError(err: GithubRequestError, now = Date.now()): GithubErrorClass {
  const status = err.status;
  const where = err.request?.method && err.request.url ? ` (${err.request.method} ${redactUrl(err.request.url)})` : '';
  const base = `GitHub answered ${status}${where}: ${err.message}`;
  const retryAfter = header(err, 'retry-after');
  const remaining = header(err, 'x-ratelimit-remaining');
  const reset = header(err, 'x-ratelimit-reset');
  const rateLimited =
    status === 429 ||
    (status === 403 && (retryAfter !== undefined || remaining === '0' || /rate limit/i.test(err.message)));
  if (rateLimited) {
    let retryAfterMs = 60_000;
    if (retryAfter !== undefined && /^\d+$/.test(retryAfter)) retryAfterMs = Number(retryAfter) * 1000;
    else if (remaining === '0' && reset !== undefined && /^\d+$/.test(reset)) retryAfterMs = Math.max(1000, Number(reset) * 1000 - now);
    return { retryable: true, type: 'GITHUB_RATE_LIMITED', status, retryAfterMs, message: base };
  }
  if (status === 401) return { retryable: false, type: 'GITHUB_UNAUTHORIZED', status, message: `GitHub rejected the access token (401); re-link the account: ${err.message}` };
  if (status === 403) return { retryable: false, type: 'GITHUB_FORBIDDEN', status, message: `the access token may not do this (403)${where}: ${err.message}` };
  if (status === 404) return { retryable: false, type: 'GITHUB_NOT_FOUND', status, message: `not found or not visible to the access token (404)${where}: ${err.message}` };
  if (status === 409 || status === 422) return { retryable: true, type: 'GITHUB_CONFLICT', status, message: base };
  if (status >= 500 || status === 408) return { retryable: true, type: 'GITHUB_UNAVAILABLE', status, message: base };
  return { retryable: false, type: 'GITHUB_REJECTED', status, message: base };
}

function redactUrl(url: string): string {
  return url.replace(/([?&](?:access_token|client_secret)=)[^&]*/gi, '$1[REDACTED]');
}
