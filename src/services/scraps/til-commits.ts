/**
 * SAN-10 request of a TIL commit to GitHub: the ordered checks, the non-colliding path decided
 * through the GitHub API, and til_github_commits + its TIL_GITHUB_COMMIT job inserted in one
 * transaction, the workflow started after commit (SAN-4).
 */
import type { PrismaClient, TilGithubCommit } from '@prisma/client';
import { DomainError } from '../../core/domain-error';
import type { TokenBox } from '../../crypto/token-box';
import { contentHash } from '../../domain/scraps/scrap';
import { enqueueAndStart } from '../../core/enqueue';
import type { JobStarter } from '../../core/starter';
import { classifyGithubError, isRequestError, type GithubClient, type GithubClientFactory } from '../../github/client';
import { isoDate, tilFileContent, tilFilePath } from '../../domain/scraps/til-paths';
import { SAN_ERRORS } from '../../domain/scraps/errors';
import type { DestinationPolicy } from '../../core/webhook-destination';
import { checkRequestWebhook } from '../../core/webhook-requests';

/** Statuses covered by the live partial unique indexes of til_github_commits. */
export const LIVE_COMMIT_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED'] as const;
/** Most `-n` suffixes tried before giving up on a path. */
export const MAX_PATH_CANDIDATES = 50;

/** Dependencies of {@link requestTilCommit}. */
export interface TilCommitDeps {
  db: PrismaClient;
  starter: JobStarter;
  tokens: TokenBox;
  github: GithubClientFactory;
  log: { warn(obj: object, msg: string): void };
  /** Destination rules of a `webhook` URL. */
  destinations: DestinationPolicy;
}

/** SAN-10 answer: the commit row, its job and the chosen file path. */
export interface TilCommitAccepted {
  commitId: string;
  jobId: string;
  filePath: string;
}

/**
 * Maps a GitHub error met while serving a request to a problem: 401 → 422 GITHUB_TOKEN_REJECTED;
 * 403/404 → 400 GITHUB_REPOSITORY_INACCESSIBLE; rate limits, 5xx, network → 503 GITHUB_UNAVAILABLE.
 * Anything else is rethrown.
 */
export function githubProblem(err: unknown, what: string): DomainError {
  if (!isRequestError(err)) throw err;
  const c = classifyGithubError(err);
  if (c.type === 'GITHUB_UNAUTHORIZED') {
    return SAN_ERRORS.problem('GITHUB_TOKEN_REJECTED', 'GitHub rejected the access token (401 Bad credentials); link the account again with a valid token');
  }
  if (c.type === 'GITHUB_FORBIDDEN' || c.type === 'GITHUB_NOT_FOUND') {
    return SAN_ERRORS.problem('GITHUB_REPOSITORY_INACCESSIBLE', `${what} is missing or not accessible with the linked token (GitHub answered ${c.status})`);
  }
  return SAN_ERRORS.problem('GITHUB_UNAVAILABLE', `GitHub could not be reached or is rate limiting (status ${c.status}); try again later`);
}

/**
 * SAN-10 `POST /til/{summaryId}/github-commits`, checks in order: the summary is the user's (404)
 * and its TIL is generated (400 TIL_NOT_READY); a GitHub account is linked (400
 * GITHUB_ACCOUNT_NOT_LINKED); a repository is linked (400 GITHUB_REPOSITORY_NOT_LINKED); no live
 * commit of the same content (409 DUPLICATE_RESOURCE naming it); a free path (`-2`, `-3` … when
 * taken in the repository or by a live row). Concurrent identical requests make one commit: the
 * live partial unique indexes decide, the losers get the 409. `webhook` (a per-request completion
 * webhook URL, src/core/webhook-requests.ts) is checked before everything else and kept for the
 * new job in its transaction.
 * @throws DomainError 400 WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING (the webhook's
 *   checks), then the checks above.
 */
export async function requestTilCommit(deps: TilCommitDeps, userId: string, summaryId: string, webhook?: string): Promise<TilCommitAccepted> {
  const { db } = deps;
  if (webhook !== undefined) await checkRequestWebhook(db, deps.destinations, userId, webhook);
  // Three independent reads at once; the checks still answer in their order.
  const [summary, account, repo] = await Promise.all([
    db.dailySummary.findFirst({ where: { id: summaryId, userId } }),
    db.githubAccount.findUnique({ where: { userId } }),
    db.githubRepository.findUnique({ where: { userId } }),
  ]);
  if (!summary) throw SAN_ERRORS.problem('NOT_FOUND', `daily summary ${summaryId} not found`);
  if (!summary.generatedAt || summary.tilMarkdown === null) {
    throw SAN_ERRORS.problem('TIL_NOT_READY', `the TIL of summary ${summaryId} has not been generated yet`);
  }
  if (!account) throw SAN_ERRORS.problem('GITHUB_ACCOUNT_NOT_LINKED', 'link a GitHub account first: PUT /github/account');
  if (!repo) throw SAN_ERRORS.problem('GITHUB_REPOSITORY_NOT_LINKED', 'link a repository first: PUT /github/repository');

  const content = tilFileContent(summary.tilMarkdown);
  const hash = contentHash(content);
  await assertNoLiveDuplicate(db, userId, hash);

  let token: string;
  try {
    token = deps.tokens.open({ keyId: account.keyId, ciphertext: account.tokenEncrypted }, userId);
  } catch {
    throw SAN_ERRORS.problem('GITHUB_TOKEN_REJECTED', 'the stored GitHub token cannot be decrypted (its key was retired); link the account again', {
      title: 'GitHub Token Unreadable',
    });
  }
  const client = await deps.github(token);
  const date = isoDate(summary.targetDate);
  const skip = new Set<string>();
  for (let round = 0; round < 3; round += 1) {
    const filePath = await choosePath(db, client, { owner: repo.owner, name: repo.name, branch: repo.branch, directory: repo.directory }, date, summary.title ?? '', content, skip);
    const accepted = await enqueueAndStart(deps, async ({ tx, enqueue, undoWith, attachWebhook }) => {
      const inserted = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO til_github_commits (id, user_id, summary_id, content_hash, repo_owner, repo_name, branch, file_path, status, updated_at)
        VALUES (gen_random_uuid(), ${userId}::uuid, ${summaryId}::uuid, ${hash}, ${repo.owner}, ${repo.name}, ${repo.branch}, ${filePath}, 'PENDING', now())
        ON CONFLICT DO NOTHING
        RETURNING id`;
      const commitId = inserted[0]?.id;
      if (!commitId) return null;
      undoWith((t) => t.tilGithubCommit.deleteMany({ where: { id: commitId, status: 'PENDING' } }));
      const { job } = await enqueue({ jobType: 'TIL_GITHUB_COMMIT', targetId: commitId, userId });
      if (webhook !== undefined) await attachWebhook({ userId, url: webhook }, [job.jobId]);
      return { commitId, jobId: job.jobId, filePath };
    });
    if (accepted) {
      return { commitId: accepted.commitId, jobId: accepted.jobId, filePath: accepted.filePath };
    }
    // A concurrent request won one of the live indexes: the same content (409) or this path (retry).
    await assertNoLiveDuplicate(db, userId, hash);
    skip.add(filePath);
  }
  throw SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', 'could not reserve a file path; try again', { status: 503 });
}

async function assertNoLiveDuplicate(db: PrismaClient, userId: string, hash: string): Promise<void> {
  const live: TilGithubCommit | null = await db.tilGithubCommit.findFirst({
    where: { userId, contentHash: hash, status: { in: [...LIVE_COMMIT_STATUSES] } },
  });
  if (live) {
    throw SAN_ERRORS.problem('DUPLICATE_RESOURCE', `this TIL content is already committed or being committed: commit ${live.id} (${live.status}, ${live.filePath})`);
  }
}

/**
 * SAN-10 path choice: the first of `<dir>/<date>-<slug>.md`, `-2`, `-3` … that no live row of the
 * same repository branch holds and that is missing on GitHub (or already holds exactly `content`,
 * which the job then reuses instead of committing twice).
 */
async function choosePath(
  db: PrismaClient,
  client: GithubClient,
  repo: { owner: string; name: string; branch: string; directory: string },
  date: string,
  title: string,
  content: string,
  skip: ReadonlySet<string>,
): Promise<string> {
  for (let n = 1; n <= MAX_PATH_CANDIDATES; n += 1) {
    const path = tilFilePath(repo.directory, date, title, n);
    if (skip.has(path)) continue;
    // The row check and the GitHub read at once (both read-only); a held path ignores the read.
    const [held, read] = await Promise.all([
      db.tilGithubCommit.findFirst({
        where: { repoOwner: repo.owner, repoName: repo.name, branch: repo.branch, filePath: path, status: { in: [...LIVE_COMMIT_STATUSES] } },
        select: { id: true },
      }),
      client.getFile(repo.owner, repo.name, path, repo.branch).then((file) => ({ file }), (error: unknown) => ({ error })),
    ]);
    if (held) continue;
    if ('error' in read) throw githubProblem(read.error, `repository ${repo.owner}/${repo.name} (branch ${repo.branch})`);
    if (!read.file || read.file.content === content) return path;
  }
  throw SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', `the first ${MAX_PATH_CANDIDATES} file names for this TIL are taken in ${repo.owner}/${repo.name}`);
}
