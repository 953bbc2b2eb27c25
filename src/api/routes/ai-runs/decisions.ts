/**
 * AR-5 `POST /api/v1/ai-runs/{aiRunId}/candidate-decisions`: HR adopts or discards a run's
 * candidates; an adopted candidate becomes exactly one Task. Nothing is sent anywhere.
 *
 * The version check is required (428 PRECONDITION_REQUIRED without one, RFC 6585 section 3): a decision
 * is made by a person looking at one version of the run, and the run may have moved on since (a
 * colleague decided, the run was re-read …); naming the version makes a stale view fail loudly
 * (412 for If-Match, 409 for a body `version`) instead of silently deciding on changed facts. The
 * version travels either as `If-Match` with the run's strong ETag `"ai-run-<runId>-v<version>"`
 * (src/domain/ai-runs/etag.ts, the ETag GET sends) or as `version` in the body. A repeat of decisions
 * already recorded exactly as asked changes nothing and answers 200 whatever version it names.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { StaleRunVersionError } from '../../../domain/ai-runs/decision-rules';
import { AR_ERRORS } from '../../../domain/ai-runs/errors';
import { aiRunEtag, parseAiRunEtag } from '../../../domain/ai-runs/etag';
import { applyCandidateDecisions } from '../../../services/ai-runs/decisions';
import type { ApiDeps } from '../../deps';
import { parseIfMatch } from '../../if-match';
import { DECISIONS_RESPONSES, DecisionsBody, DecisionsHeaders, DecisionsParams, taskBody } from './decision-schemas';

/** Where the caller's version came from (it decides 412 or 409 when stale). */
type VersionSource = 'if-match' | 'body';

/**
 * The versions the request names for run `aiRunId` and where they came from.
 * @throws DomainError 400 VALIDATION_FAILED (malformed If-Match), 428 PRECONDITION_REQUIRED (no
 *   version at all; `If-Match: *` names none), 400 CONFLICTING_PRECONDITIONS (If-Match and body disagree).
 */
export function requestedVersions(aiRunId: string, ifMatchHeader: string | string[] | undefined, bodyVersion: number | undefined): { source: VersionSource; versions: number[] } {
  const ifMatch = parseIfMatch(ifMatchHeader);
  if (ifMatch === 'malformed') {
    throw AR_ERRORS.problem('VALIDATION_FAILED', 'headers.if-match: must be an entity tag list, e.g. ' + aiRunEtag(aiRunId, 1));
  }
  if (ifMatch?.kind === 'tags') {
    // Strong comparison (RFC 9110 section 13.1.1): weak tags and tags of other runs never match.
    const versions = ifMatch.strong.map(parseAiRunEtag).filter((t) => t?.runId === aiRunId.toLowerCase()).map((t) => t!.version);
    if (bodyVersion !== undefined && !versions.includes(bodyVersion)) {
      throw AR_ERRORS.problem('CONFLICTING_PRECONDITIONS', `If-Match and version ${bodyVersion} name different versions of the run; send one of them`);
    }
    return { source: 'if-match', versions };
  }
  if (bodyVersion !== undefined) return { source: 'body', versions: [bodyVersion] };
  throw AR_ERRORS.problem(
    'PRECONDITION_REQUIRED',
    ifMatch?.kind === 'any'
      ? "If-Match: * names no version; send the run's ETag or `version` in the body"
      : "send If-Match with the run's ETag (GET /api/v1/ai-runs/{aiRunId}) or `version` in the body",
  );
}

/** AR-5 the candidate-decisions route. */
export const decisionRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.post(
    '/api/v1/ai-runs/:aiRunId/candidate-decisions',
    {
      schema: {
        tags: ['ai-runs'],
        summary: "Adopt or discard a SUCCEEDED run's candidates; each adopted candidate becomes one Task",
        description:
          'All or nothing, in one transaction. Needs HR_MANAGER or OWNER (VIEWER → 403; not a member → 404). The run\'s ' +
          'version is required: If-Match with its strong ETag `"ai-run-<runId>-v<version>"` (stale → 412) or `version` in the body ' +
          '(stale → 409); neither → 428. Applying bumps the version (the new ETag is in the answer). The same decisions again ' +
          '(or concurrently) answer the same decisions and Tasks, never a second Task. A discarded candidate cannot be adopted, ' +
          'an adopted one cannot be discarded, a candidate of an earlier attempt cannot be decided, and a candidate the AR-9 ' +
          'guards blocked can be discarded but not adopted (422 CANDIDATE_BLOCKED). Nothing is sent anywhere.',
        params: DecisionsParams,
        headers: DecisionsHeaders,
        body: DecisionsBody,
        response: DECISIONS_RESPONSES,
      },
    },
    async (req, reply) => {
      const { aiRunId } = req.params;
      const { source, versions } = requestedVersions(aiRunId, req.headers['if-match'], req.body.version);
      try {
        const result = await applyCandidateDecisions(deps.db, { aiRunId, userId: req.userId, decisions: req.body.decisions, expectedVersions: versions });
        const etag = aiRunEtag(result.aiRunId, result.version);
        req.log.info({ aiRunId, applied: result.applied, version: result.version }, 'candidate decisions');
        return reply.code(200).header('ETag', etag).send({
          aiRunId: result.aiRunId,
          version: result.version,
          etag,
          applied: result.applied,
          decisions: result.decisions.map((d) => ({ ...d, decidedAt: d.decidedAt.toISOString() })),
          tasks: result.tasks.map(taskBody),
        });
      } catch (err) {
        if (!(err instanceof StaleRunVersionError)) throw err;
        const current = aiRunEtag(aiRunId.toLowerCase(), err.currentVersion);
        const headers = { ETag: current };
        throw source === 'if-match'
          ? AR_ERRORS.problem('PRECONDITION_FAILED', `If-Match does not match the run's current ETag ${current}; read the run again`, { headers })
          : AR_ERRORS.problem('AI_RUN_VERSION_CONFLICT', err.detail, { headers });
      }
    },
  );
};
