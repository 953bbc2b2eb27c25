/**
 * SAN-10 GitHub activities on the `github` task queue (DC-2): decrypt the stored token, then write
 * the TIL file with the contents API. The PUT is made harmless to repeat: the file's current
 * content is read first, and when it already holds exactly our bytes (an earlier attempt's PUT was
 * accepted before its worker died) the existing commit is returned instead of a second one.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { TokenBox } from '../../crypto/token-box';
import type { GithubClientFactory } from '../../github/client';
import { toGithubFailure } from '../../github/failures';
import { withHeartbeat as heartbeating } from '../../core/heartbeat';
import { isoDate, tilCommitMessage, tilFileContent } from '../../domain/scraps/til-paths';
import { contentHash } from '../../domain/scraps/scrap';
import { failure } from '../../core/failures';
import { SAN_FAILURES } from '../../domain/scraps/errors';
import { GITHUB_FAILURES } from '../../github/failures';

/** Dependencies of the GitHub activities. */
export interface GithubActivityDeps {
  db: PrismaClient;
  tokens: TokenBox;
  github: GithubClientFactory;
}

/** Result of {@link GithubActivities.commitTilToGithub}: `reused` when the file already held our content. */
export interface CommitTilResult {
  commitSha: string;
  htmlUrl: string;
  reused: boolean;
}

/** Runs `fn` with the activity's cancellation signal, heartbeating every second, GitHub errors classified. */
function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return heartbeating(fn, toGithubFailure, 1000);
}

/** Builds the `github` task-queue activities. */
export function createGithubActivities({ db, tokens, github }: GithubActivityDeps) {
  return {
    /**
     * SAN-10: commits the TIL of til_github_commit `commitId` to its repository path and returns
     * the commit SHA and its html_url. Idempotency key: (repository, branch, path, content): a
     * retry after GitHub accepted the PUT finds our content and returns that commit. Retry class:
     * 401/403/404 terminal (GITHUB_UNAUTHORIZED/FORBIDDEN/NOT_FOUND), PATH_TAKEN and
     * CONTENT_CHANGED terminal; 409/422, rate limits (GitHub's delay) and 5xx retryable.
     */
    async commitTilToGithub(args: { commitId: string }): Promise<CommitTilResult> {
      const row = await db.tilGithubCommit.findUnique({ where: { id: args.commitId } });
      if (!row) throw failure(SAN_FAILURES, 'COMMIT_NOT_FOUND', `til_github_commit ${args.commitId} not found`);
      const summary = await db.dailySummary.findUnique({ where: { id: row.summaryId } });
      if (!summary?.tilMarkdown || !summary.generatedAt) {
        throw failure(SAN_FAILURES, 'TIL_NOT_READY', `daily summary ${row.summaryId} has no generated TIL`);
      }
      const content = tilFileContent(summary.tilMarkdown);
      if (contentHash(content) !== row.contentHash) {
        throw failure(SAN_FAILURES, 'CONTENT_CHANGED', `the TIL of summary ${row.summaryId} changed after the commit was requested`);
      }
      const account = await db.githubAccount.findUnique({ where: { userId: row.userId } });
      if (!account) throw failure(SAN_FAILURES, 'GITHUB_ACCOUNT_NOT_LINKED', `user ${row.userId} has no linked GitHub account`);
      let token: string;
      try {
        token = tokens.open({ keyId: account.keyId, ciphertext: account.tokenEncrypted }, row.userId);
      } catch (err) {
        throw failure(SAN_FAILURES, 'GITHUB_TOKEN_UNREADABLE', `stored GitHub token cannot be decrypted: ${(err as Error).message}`);
      }
      const { repoOwner: owner, repoName: repo, branch, filePath: path } = row;

      return withHeartbeat(async (signal) => {
        const client = await github(token, signal);
        const current = await client.getFile(owner, repo, path, branch);
        if (current) {
          if (current.content !== content) {
            throw failure(SAN_FAILURES, 'PATH_TAKEN', `${owner}/${repo}:${branch}/${path} already exists with other content`);
          }
          const last = await client.latestCommitForPath(owner, repo, path, branch);
          if (!last) throw failure(GITHUB_FAILURES, 'GITHUB_CONFLICT', `${path} exists but has no commit on ${branch} yet`);
          activityLog.info('TIL already on GitHub; reusing its commit', { commitId: row.id, commitSha: last.sha });
          return { commitSha: last.sha, htmlUrl: last.htmlUrl, reused: true };
        }
        const put = await client.putFile({
          owner, repo, path, branch,
          message: tilCommitMessage(isoDate(summary.targetDate), summary.title),
          content,
        });
        activityLog.info('TIL committed to GitHub', { commitId: row.id, commitSha: put.commitSha });
        return { commitSha: put.commitSha, htmlUrl: put.commitHtmlUrl, reused: false };
      });
    },
  };
}

/** Type of the `github` activities, for `proxyActivities` in workflows. */
export type GithubActivities = ReturnType<typeof createGithubActivities>;
