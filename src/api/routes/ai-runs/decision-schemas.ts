/**
 * zod schemas of the AR decision, Task and run-list routes (AR-5, AR-3 list, AR-10): they drive
 * validation, serialisation and the OpenAPI document, with the named examples of each outcome.
 */
import { AiRunOutcome, AiRunStatus, TaskStatus, type AiRun, type Task } from '@prisma/client';
import { z } from 'zod';
import { titleOf } from '../../../core/domain-error';
import { DECISIONS, duplicateCandidateIds, MAX_DECISIONS_PER_REQUEST } from '../../../domain/ai-runs/decision-rules';
import { aiRunEtag } from '../../../domain/ai-runs/etag';
import { IF_MATCH_PATTERN } from '../../if-match';
import { PROBLEM_MEDIA_TYPE, problemBody, ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';

const RUN = '3f1c9a52-8d47-4e0b-9a6e-2b7d5c1e4f80';
const CANDIDATE_1 = 'b0e6f1d2-4c3a-4f5e-8a9b-1c2d3e4f5a61';
const CANDIDATE_2 = 'c1f7a2e3-5d4b-4a6f-9b0c-2d3e4f5a6b72';
const TASK_1 = 'd2a8b3f4-6e5c-4b7a-8c1d-3e4f5a6b7c83';
const HR_USER = 'e3b9c4a5-7f6d-4c8b-9d2e-4f5a6b7c8d94';
const COMPANY = 'f4cad5b6-8a7e-4d9c-8e3f-5a6b7c8d9ea5';

/** AR-5 request body: the decisions and, unless `If-Match` is sent, the run's version. */
export const DecisionsBody = z
  .strictObject({
    decisions: z
      .array(z.strictObject({ candidateId: Uuid, decision: z.enum(DECISIONS) }))
      .min(1)
      .max(MAX_DECISIONS_PER_REQUEST)
      .superRefine((items, ctx) => {
        for (const d of duplicateCandidateIds(items)) {
          ctx.addIssue({ code: 'custom', path: [d.index, 'candidateId'], message: `duplicate candidateId (also at decisions.${d.firstIndex})` });
        }
      })
      .describe('one entry per candidate; a candidate id may appear once'),
    version: z.number().int().min(1).max(999_999_999).optional()
      .describe("the run's version the decisions were made on (GET's `version`); or send its ETag as If-Match instead"),
  })
  .meta({
    'x-examples': {
      adoptWithVersion: {
        summary: 'adopt one candidate, discard another, naming the version in the body',
        value: { decisions: [{ candidateId: CANDIDATE_1, decision: 'ADOPT' }, { candidateId: CANDIDATE_2, decision: 'DISCARD' }], version: 3 },
      },
      discardWithIfMatch: {
        summary: `discard one candidate; the version travels as If-Match: ${aiRunEtag(RUN, 3)}`,
        value: { decisions: [{ candidateId: CANDIDATE_2, decision: 'DISCARD' }] },
      },
    },
  });

/** Request headers of the decisions route (other headers pass through untouched). */
export const DecisionsHeaders = z.looseObject({
  'if-match': z.string().max(2048).optional().meta({
    description:
      "The run's ETag from GET /api/v1/ai-runs/{aiRunId} (strong; a weak W/ tag never matches), or a list of entity tags (RFC 9110). " +
      'Or send `version` in the body. A value that is not an entity tag list → 400 VALIDATION_FAILED.',
    pattern: IF_MATCH_PATTERN,
    example: aiRunEtag(RUN, 3),
  }),
});

/** Path of the decisions route; its example is the run the other examples name. */
export const DecisionsParams = z.object({ aiRunId: Uuid.meta({ example: RUN }) });

/** AR-5 a Task made from one adopted candidate (nothing is sent; approval is a later command). */
export const TaskSchema = z
  .object({
    taskId: z.uuid(),
    companyId: z.uuid(),
    aiRunId: z.uuid(),
    candidateId: z.uuid(),
    taskType: z.string(),
    status: z.enum(TaskStatus).describe('NEEDS_INFO while slots are missing, else READY_FOR_REVIEW'),
    slots: z.record(z.string(), z.unknown()),
    missingSlots: z.array(z.string()),
    createdBy: z.uuid(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Task' });

/** One recorded decision. */
export const CandidateDecisionSchema = z
  .object({
    candidateId: z.uuid(),
    decision: z.enum(DECISIONS),
    decidedBy: z.uuid(),
    decidedAt: z.iso.datetime(),
    runVersion: z.number().int().describe('the run version the decision was made on'),
    taskId: z.uuid().nullable().describe('the Task an ADOPT made; null for DISCARD'),
  })
  .meta({ id: 'CandidateDecision' });

/** AR-5 answer: the requested candidates' decisions and Tasks, and the run's version after them. */
export const DecisionsResultSchema = z
  .object({
    aiRunId: z.uuid(),
    version: z.number().int().describe("the run's version now (unchanged when every decision was already recorded)"),
    etag: z.string().describe('the run ETag of that version (also the ETag header)'),
    applied: z.number().int().describe('decisions this request recorded; 0 for a repeat'),
    decisions: z.array(CandidateDecisionSchema),
    tasks: z.array(TaskSchema),
  })
  .meta({ id: 'CandidateDecisionsResult' });

/** AR-3 one run in a company's list (the full run, attempts and candidates: GET /api/v1/ai-runs/{id}). */
export const AiRunSummarySchema = z
  .object({
    aiRunId: z.uuid(),
    companyId: z.uuid(),
    status: z.enum(AiRunStatus),
    analysisOutcome: z.enum(AiRunOutcome).nullable().describe('null until SUCCEEDED'),
    attemptCount: z.number().int(),
    retryCount: z.number().int(),
    errorCode: z.string().nullable(),
    version: z.number().int(),
    etag: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'AiRunSummary' });

/** A page of runs, newest first. */
export const AiRunPageSchema = z
  .object({ items: z.array(AiRunSummarySchema), nextCursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last') })
  .meta({ id: 'AiRunPage' });

/** A page of Tasks, newest first. */
export const TaskPageSchema = z
  .object({ items: z.array(TaskSchema), nextCursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last') })
  .meta({ id: 'TaskPage' });

/** The API shape of a Task row. */
export function taskBody(t: Task): z.infer<typeof TaskSchema> {
  return {
    taskId: t.id,
    companyId: t.companyId,
    aiRunId: t.runId,
    candidateId: t.candidateId,
    taskType: t.taskType,
    status: t.status,
    slots: (t.slots ?? {}) as Record<string, unknown>,
    missingSlots: t.missingSlots,
    createdBy: t.createdBy,
    createdAt: t.createdAt.toISOString(),
  };
}

/** The API shape of a run in a list. */
export function runSummaryBody(r: AiRun): z.infer<typeof AiRunSummarySchema> {
  return {
    aiRunId: r.id,
    companyId: r.companyId,
    status: r.status,
    analysisOutcome: r.analysisOutcome,
    attemptCount: r.attemptCount,
    retryCount: r.retryCount,
    errorCode: r.errorCode,
    version: r.version,
    etag: aiRunEtag(r.id, r.version),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}

// ---- named examples (AR-10) --------------------------------------------------------------------

const EXAMPLE_TASK: z.infer<typeof TaskSchema> = {
  taskId: TASK_1,
  companyId: COMPANY,
  aiRunId: RUN,
  candidateId: CANDIDATE_1,
  taskType: 'EMPLOYMENT_CERTIFICATE',
  status: 'READY_FOR_REVIEW',
  slots: { purpose: 'visa application', dueDate: '2026-12-04', language: 'en' },
  missingSlots: [],
  createdBy: HR_USER,
  createdAt: '2026-12-01T12:31:05.120Z',
};

const decided = (candidateId: string, decision: 'ADOPT' | 'DISCARD', taskId: string | null) => ({
  candidateId, decision, decidedBy: HR_USER, decidedAt: '2026-12-01T12:31:05.120Z', runVersion: 3, taskId,
});

const problemExample = (summary: string, status: number, code: string, detail: string) => ({
  summary,
  value: problemBody(status, code, titleOf(code), detail, { instance: `/api/v1/ai-runs/${RUN}/candidate-decisions` }),
});

const media = (schema: z.ZodType, examples: Record<string, { summary: string; value: unknown }>, type = 'application/json') => ({
  content: { [type]: Object.keys(examples).length > 0 ? { schema, examples } : { schema } },
});

const CURRENT_ETAG = { ETag: { type: 'string', description: "the run's current ETag" } };

/** OpenAPI responses of `POST …/candidate-decisions` with named examples per outcome (AR-10). */
export const DECISIONS_RESPONSES = {
  200: {
    description: 'Applied (or already recorded exactly so): the decisions, the Tasks and the run\'s new version',
    headers: { ETag: { type: 'string', description: "the run's ETag after the decisions" } },
    ...media(DecisionsResultSchema, {
      adoptedAndDiscarded: {
        summary: 'success: one candidate adopted (its Task READY_FOR_REVIEW), one discarded; version 3 → 4',
        value: { aiRunId: RUN, version: 4, etag: aiRunEtag(RUN, 4), applied: 2, decisions: [decided(CANDIDATE_1, 'ADOPT', TASK_1), decided(CANDIDATE_2, 'DISCARD', null)], tasks: [EXAMPLE_TASK] },
      },
      needsInfoTask: {
        summary: 'needs-info: the adopted candidate lacks slots, so its Task is NEEDS_INFO',
        value: {
          aiRunId: RUN, version: 4, etag: aiRunEtag(RUN, 4), applied: 1, decisions: [decided(CANDIDATE_1, 'ADOPT', TASK_1)],
          tasks: [{ ...EXAMPLE_TASK, status: 'NEEDS_INFO', slots: { purpose: 'visa application' }, missingSlots: ['dueDate'] }],
        },
      },
      repeated: {
        summary: 'the same decision again (or concurrently): the same decision and Task, nothing new, version unchanged',
        value: { aiRunId: RUN, version: 4, etag: aiRunEtag(RUN, 4), applied: 0, decisions: [decided(CANDIDATE_1, 'ADOPT', TASK_1)], tasks: [EXAMPLE_TASK] },
      },
    }),
  },
  400: {
    description: 'VALIDATION_FAILED (e.g. a candidateId twice), CONFLICTING_PRECONDITIONS (If-Match and version disagree)',
    ...media(ProblemSchema, {
      duplicateCandidate: {
        summary: 'the same candidate twice in one request',
        value: { ...problemBody(400, 'VALIDATION_FAILED', 'Validation Failed', 'body.decisions.1.candidateId: duplicate candidateId (also at decisions.0)'), errors: [{ path: 'body.decisions.1.candidateId', message: 'duplicate candidateId (also at decisions.0)' }] },
      },
    }, PROBLEM_MEDIA_TYPE),
  },
  403: { description: 'FORBIDDEN: the caller is a VIEWER (decisions need HR_MANAGER or OWNER)', ...media(ProblemSchema, {}, PROBLEM_MEDIA_TYPE) },
  404: { description: 'NOT_FOUND: no such run, or the caller is not a member of its company', ...media(ProblemSchema, {}, PROBLEM_MEDIA_TYPE) },
  409: {
    description: 'AI_RUN_VERSION_CONFLICT: the body `version` is not current; nothing applied (current ETag in the ETag header)',
    headers: CURRENT_ETAG,
    ...media(ProblemSchema, {
      staleVersion: problemExample('stale body version', 409, 'AI_RUN_VERSION_CONFLICT', 'the run changed: its current version is 4; read it again and decide on that version'),
    }, PROBLEM_MEDIA_TYPE),
  },
  412: {
    description: "PRECONDITION_FAILED: If-Match is not the run's current ETag; nothing applied (current ETag in the ETag header)",
    headers: CURRENT_ETAG,
    ...media(ProblemSchema, {
      staleEtag: problemExample('stale If-Match', 412, 'PRECONDITION_FAILED', `If-Match does not match the run's current ETag ${aiRunEtag(RUN, 4)}; read the run again`),
    }, PROBLEM_MEDIA_TYPE),
  },
  422: {
    description:
      'A business rule refused the request; nothing applied. AI_RUN_NOT_SUCCEEDED, CANDIDATE_NOT_IN_RUN, CANDIDATE_ALREADY_DISCARDED, ' +
      'CANDIDATE_ALREADY_ADOPTED, CANDIDATE_SUPERSEDED, CANDIDATE_BLOCKED',
    ...media(ProblemSchema, {
      discardedThenAdopt: problemExample('adopting a discarded candidate', 422, 'CANDIDATE_ALREADY_DISCARDED', `decisions[0] (candidate ${CANDIDATE_2}) was discarded; a discarded candidate cannot be adopted`),
      runNotSucceeded: problemExample('failure: the run is not SUCCEEDED', 422, 'AI_RUN_NOT_SUCCEEDED', 'the run is FAILED: only the candidates of a SUCCEEDED run can be decided'),
      blocked: problemExample('adopting a candidate the AR-9 guards blocked', 422, 'CANDIDATE_BLOCKED', `decisions[0] (candidate ${CANDIDATE_1}) was blocked by the AR-9 guards (see its validationErrors); it can be discarded, not adopted`),
      superseded: problemExample('a candidate of an earlier attempt', 422, 'CANDIDATE_SUPERSEDED', `decisions[0] (candidate ${CANDIDATE_1}) comes from an earlier attempt than the run's latest; decide the latest attempt's candidates`),
    }, PROBLEM_MEDIA_TYPE),
  },
  428: {
    description: 'PRECONDITION_REQUIRED: neither If-Match nor `version`: a decision must name the version of the run it was made on',
    ...media(ProblemSchema, {
      noVersion: problemExample('no If-Match, no version', 428, 'PRECONDITION_REQUIRED', 'send If-Match with the run\'s ETag or `version` in the body'),
    }, PROBLEM_MEDIA_TYPE),
  },
} as const;

/** OpenAPI responses of the run list with named examples. */
export const RUN_LIST_RESPONSES = {
  200: {
    description: 'A page of the company\'s runs, newest first',
    ...media(AiRunPageSchema, {
      firstPage: {
        summary: 'a page with a further page after it',
        value: {
          items: [{
            aiRunId: RUN, companyId: COMPANY, status: 'SUCCEEDED', analysisOutcome: 'REVIEW_REQUIRED', attemptCount: 1, retryCount: 0, errorCode: null,
            version: 3, etag: aiRunEtag(RUN, 3), createdAt: '2026-12-01T12:30:00.000Z', updatedAt: '2026-12-01T12:30:02.450Z', finishedAt: '2026-12-01T12:30:02.450Z',
          }],
          nextCursor: 'eyJrIjoiYWktcnVucyIsInQiOiIyMDI2LTEyLTAxVDEyOjMwOjAwLjAwMFoiLCJpIjoiM2YxYzlhNTItOGQ0Ny00ZTBiLTlhNmUtMmI3ZDVjMWU0ZjgwIn0',
        },
      },
      lastPage: { summary: 'the last page', value: { items: [], nextCursor: null } },
    }),
  },
  400: {
    description: 'VALIDATION_FAILED (limit outside 1..100, unknown status) or INVALID_CURSOR',
    ...media(ProblemSchema, {
      invalidCursor: { summary: 'a cursor this list did not make', value: problemBody(400, 'INVALID_CURSOR', 'Invalid Cursor', 'cursor is not a nextCursor of this list; start again without a cursor') },
    }, PROBLEM_MEDIA_TYPE),
  },
  404: { description: 'NOT_FOUND: the caller is not a member of the company', ...media(ProblemSchema, {}, PROBLEM_MEDIA_TYPE) },
} as const;
