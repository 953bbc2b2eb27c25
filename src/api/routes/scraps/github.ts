/**
 * SAN-10 GitHub link and TIL commits: `PUT|GET|DELETE /github/account`, `PUT|GET|DELETE
 * /github/repository`, `POST|GET /til/{summaryId}/github-commits`. The access token is verified
 * with GitHub, stored encrypted, and never returned or logged.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tokenBoxFromConfig } from '../../../crypto/token-box';
import { githubClientFactoryFromConfig } from '../../../github/client';
import { normaliseDirectory } from '../../../domain/scraps/til-paths';
import { githubProblem, requestTilCommit } from '../../../services/scraps/til-commits';
import { JOB_STATUSES } from '../../../core/contracts';
import type { SanRouteDeps } from './deps';
import { ProblemSchema, problemResponse } from '../../problem';
import { REQUEST_WEBHOOK_RULES, RequestWebhookField, Uuid } from '../../schemas';
import { SAN_ERRORS } from '../../../domain/scraps/errors';
import { notFound } from '../../../core/errors';
import { statusLink } from '../../openapi';

const AccountSchema = z.object({ login: z.string().nullable(), linkedAt: z.iso.datetime() }).meta({ id: 'GithubAccount' });
const RepositorySchema = z
  .object({ owner: z.string(), name: z.string(), branch: z.string(), directory: z.string(), linkedAt: z.iso.datetime() })
  .meta({ id: 'GithubRepository' });
const CommitAccepted = z.object({ commitId: z.uuid(), jobId: z.uuid(), filePath: z.string() }).meta({ id: 'TilGithubCommitAccepted' });
const CommitSchema = z
  .object({
    commitId: z.uuid(),
    jobId: z.uuid().nullable(),
    status: z.enum(JOB_STATUSES),
    repository: z.string().describe('owner/name'),
    branch: z.string(),
    filePath: z.string(),
    commitSha: z.string().nullable(),
    htmlUrl: z.string().nullable().describe('html_url of the GitHub commit'),
    errorMessage: z.string().nullable(),
    createdAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'TilGithubCommit' });

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;
/**
 * The character classes of the patterns below, spelled out so that the document's patterns use no
 * Unicode property classes (generators cannot build from `\p{…}`): ECMA-262 `\s` and `\p{Cc}`.
 */
const SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
const CONTROL = String.raw`\x00-\x1f\x7f-\x9f`;
const BRANCH = new RegExp(String.raw`^(?!\/|.*(?:\/\/|\/$|\.\.|@\{|\.lock$|\.$))[^${SPACE}~^:?*[\\${CONTROL}]{1,255}$`, 'u');
/** What {@link normaliseDirectory} accepts: `/`-separated segments, none `.`/`..`, no `\\`, control characters or surrounding spaces. */
const DIRECTORY = new RegExp(String.raw`^\/*(?:(?!\.\.?(?:\/|$))[^${SPACE}\\/${CONTROL}](?:[^\\/${CONTROL}]*[^${SPACE}\\/${CONTROL}])?(?:\/+|$))*$`, 'u');

/** SAN-10 routes, scoped to the caller (another user's summary is a 404). */
export const githubRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  const tokens = tokenBoxFromConfig(deps.config.github);
  const github = githubClientFactoryFromConfig(deps.config);
  const accountOf = (a: { login: string | null; updatedAt: Date }) => ({ login: a.login, linkedAt: a.updatedAt.toISOString() });
  const repositoryOf = (r: { owner: string; name: string; branch: string; directory: string; updatedAt: Date }) => ({
    owner: r.owner, name: r.name, branch: r.branch, directory: r.directory, linkedAt: r.updatedAt.toISOString(),
  });

  app.put(
    '/github/account',
    {
      schema: {
        tags: ['github'],
        summary: 'Link a GitHub account by access token (verified with GET /user; stored encrypted, never returned)',
        body: z
          .strictObject({
            accessToken: z
              .string()
              .trim()
              .min(1)
              .max(1024)
              .regex(/^[\x21-\x7e]+$/, 'must be a GitHub token: printable ASCII, no spaces or line breaks'),
          })
          .meta({ examples: [{ accessToken: 'ghp_16C7e42F292c6912E7710c838347Ae178B4a' }] }),
        response: { 200: AccountSchema, 400: ProblemSchema, 401: ProblemSchema, 422: ProblemSchema, 503: ProblemSchema },
      },
    },
    async (req) => {
      let login: string;
      try {
        login = (await (await github(req.body.accessToken)).getAuthenticatedUser()).login;
      } catch (err) {
        throw githubProblem(err, 'the GitHub user');
      }
      const sealed = tokens.seal(req.body.accessToken, req.userId);
      const data = { login, tokenEncrypted: sealed.ciphertext, keyId: sealed.keyId };
      const row = await deps.db.githubAccount.upsert({ where: { userId: req.userId }, create: { userId: req.userId, ...data }, update: data });
      req.log.info({ login, keyId: sealed.keyId }, 'github account linked');
      return accountOf(row);
    },
  );

  app.get(
    '/github/account',
    { schema: { tags: ['github'], summary: 'The linked GitHub account (never the token)', response: { 200: AccountSchema, 401: ProblemSchema, 404: ProblemSchema } } },
    async (req) => {
      const row = await deps.db.githubAccount.findUnique({ where: { userId: req.userId } });
      if (!row) throw notFound('GitHub account');
      return accountOf(row);
    },
  );

  app.delete(
    '/github/account',
    { schema: { tags: ['github'], summary: 'Unlink the GitHub account (deletes the stored token)', response: { 204: z.null(), 401: ProblemSchema } } },
    async (req, reply) => {
      await deps.db.githubAccount.deleteMany({ where: { userId: req.userId } });
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/github/repository',
    {
      schema: {
        tags: ['github'],
        summary: "Link the one repository TILs are committed to (checked with the account's token; branch defaults to the repository's default branch)",
        description:
          '400 GITHUB_ACCOUNT_NOT_LINKED without a linked account; 400 GITHUB_REPOSITORY_INACCESSIBLE when the repository ' +
          'is missing or the token may not push; 422 GITHUB_BRANCH_NOT_FOUND when `branch` does not exist in it; ' +
          '422 GITHUB_TOKEN_REJECTED; 503 GITHUB_UNAVAILABLE.',
        body: z
          .strictObject({
            owner: z.string().regex(OWNER, 'must be a GitHub user or organisation name'),
            name: z.string().regex(REPO, 'must be a GitHub repository name'),
            branch: z.string().regex(BRANCH, 'must be a valid branch name').optional().describe("an existing branch; default: the repository's default branch"),
            directory: z
              .string()
              .max(200)
              .regex(DIRECTORY, 'must be a relative path without . or .. segments, backslashes, control characters or segments with surrounding spaces')
              .optional()
              .describe("directory of the TIL files ('' = the repository root)"),
          })
          .meta({ examples: [{ owner: 'octocat', name: 'til', branch: 'main', directory: 'til' }, { owner: 'octocat', name: 'til' }] }),
        response: { 200: RepositorySchema, 400: ProblemSchema, 401: ProblemSchema, 422: ProblemSchema, 503: ProblemSchema },
      },
    },
    async (req) => {
      const directory = normaliseDirectory(req.body.directory ?? '');
      if (directory === null) throw SAN_ERRORS.problem('VALIDATION_FAILED', 'body.directory: must be a relative path without . or .. segments');
      const account = await deps.db.githubAccount.findUnique({ where: { userId: req.userId } });
      if (!account) throw SAN_ERRORS.problem('GITHUB_ACCOUNT_NOT_LINKED', 'link a GitHub account first: PUT /github/account');
      const { owner, name } = req.body;
      let info;
      let client;
      try {
        client = await github(tokens.open({ keyId: account.keyId, ciphertext: account.tokenEncrypted }, req.userId));
        info = await client.getRepository(owner, name);
      } catch (err) {
        throw githubProblem(err, `repository ${owner}/${name}`);
      }
      if (!info.canPush) {
        throw SAN_ERRORS.problem('GITHUB_REPOSITORY_INACCESSIBLE', `the linked token may not push to ${owner}/${name}`);
      }
      const branch = req.body.branch ?? info.defaultBranch;
      // The default branch of an empty repository does not exist yet; the first commit creates it.
      if (branch !== info.defaultBranch) {
        let found;
        try {
          found = await client.getBranch(owner, name, branch);
        } catch (err) {
          throw githubProblem(err, `branch ${branch} of ${owner}/${name}`);
        }
        if (!found) {
          throw SAN_ERRORS.problem('GITHUB_BRANCH_NOT_FOUND', `${owner}/${name} has no branch ${branch} (default: ${info.defaultBranch})`);
        }
      }
      const data = { owner, name, branch, directory };
      const row = await deps.db.githubRepository.upsert({ where: { userId: req.userId }, create: { userId: req.userId, ...data }, update: data });
      return repositoryOf(row);
    },
  );

  app.get(
    '/github/repository',
    { schema: { tags: ['github'], summary: 'The linked repository', response: { 200: RepositorySchema, 401: ProblemSchema, 404: ProblemSchema } } },
    async (req) => {
      const row = await deps.db.githubRepository.findUnique({ where: { userId: req.userId } });
      if (!row) throw notFound('GitHub repository');
      return repositoryOf(row);
    },
  );

  app.delete(
    '/github/repository',
    { schema: { tags: ['github'], summary: 'Unlink the repository', response: { 204: z.null(), 401: ProblemSchema } } },
    async (req, reply) => {
      await deps.db.githubRepository.deleteMany({ where: { userId: req.userId } });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/til/:summaryId/github-commits',
    {
      links: { 202: { GetCommitJob: statusLink('GET /async-jobs/:jobId', { jobId: '$response.body#/jobId' }, 'the commit job (SAN-5 status)'), GetTilCommits: statusLink('GET /til/:summaryId/github-commits', { summaryId: '$request.path.summaryId' }, 'the commits of the TIL, with this one') } },
      schema: {
        tags: ['github'],
        summary: 'Commit a generated TIL to the linked repository; enqueues TIL_GITHUB_COMMIT (SAN-10)',
        description: 'The body is optional (none, or JSON null, is no webhook).',
        params: z.object({ summaryId: Uuid }),
        body: z
          .strictObject({
            webhook: RequestWebhookField.describe(`${REQUEST_WEBHOOK_RULES}. It receives the terminal event (async_job.completed or async_job.failed) of the TIL_GITHUB_COMMIT job of the 202`),
          })
          .nullish() // fastify validates a request without a body as null
          .meta({ examples: [{}, { webhook: 'https://hooks.example.com/durable-jobs' }] }),
        response: {
          202: CommitAccepted,
          400: problemResponse('TIL_NOT_READY, GITHUB_ACCOUNT_NOT_LINKED, GITHUB_REPOSITORY_NOT_LINKED, GITHUB_REPOSITORY_INACCESSIBLE, VALIDATION_FAILED, MALFORMED_JSON or WEBHOOK_URL_REFUSED (a `webhook` URL the destination rules refuse); nothing is written'),
          401: ProblemSchema,
          404: ProblemSchema,
          409: problemResponse('DUPLICATE_RESOURCE (this content is committed or being committed) or WEBHOOK_SIGNING_SECRET_MISSING (a `webhook` without a signing secret); nothing is written'),
          422: ProblemSchema,
          503: ProblemSchema,
        },
      },
    },
    async (req, reply) => {
      const services = { db: deps.db, starter: deps.starter, tokens, github, log: req.log, destinations: { allowPrivate: deps.config.webhooks.allowPrivateUrls } };
      const accepted = await requestTilCommit(services, req.userId, req.params.summaryId, req.body?.webhook);
      req.log.info({ commitId: accepted.commitId, jobId: accepted.jobId, filePath: accepted.filePath }, 'github commit accepted');
      return reply.code(202).header('Location', `/async-jobs/${accepted.jobId}`).send(accepted);
    },
  );

  app.get(
    '/til/:summaryId/github-commits',
    {
      schema: {
        tags: ['github'],
        summary: "A TIL's GitHub commits, newest first, with status, commit SHA and URL",
        params: z.object({ summaryId: Uuid }),
        response: { 200: z.object({ summaryId: z.uuid(), commits: z.array(CommitSchema) }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const summary = await deps.db.dailySummary.findFirst({ where: { id: req.params.summaryId, userId: req.userId }, select: { id: true } });
      if (!summary) throw notFound(`daily summary ${req.params.summaryId}`);
      const rows = await deps.db.tilGithubCommit.findMany({ where: { summaryId: summary.id, userId: req.userId }, orderBy: { createdAt: 'desc' } });
      const jobs = await deps.db.asyncJob.findMany({
        where: { jobType: 'TIL_GITHUB_COMMIT', targetId: { in: rows.map((r) => r.id) } },
        orderBy: { createdAt: 'desc' },
        select: { jobId: true, targetId: true },
      });
      const jobOf = new Map<string, string>();
      for (const j of jobs) if (!jobOf.has(j.targetId)) jobOf.set(j.targetId, j.jobId);
      return {
        summaryId: summary.id,
        commits: rows.map((r) => ({
          commitId: r.id,
          jobId: jobOf.get(r.id) ?? null,
          status: r.status,
          repository: `${r.repoOwner}/${r.repoName}`,
          branch: r.branch,
          filePath: r.filePath,
          commitSha: r.commitSha,
          htmlUrl: r.htmlUrl,
          errorMessage: r.errorMessage,
          createdAt: r.createdAt.toISOString(),
          finishedAt: r.finishedAt?.toISOString() ?? null,
        })),
      };
    },
  );
};
