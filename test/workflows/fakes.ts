/** Typed jest fakes of every activity, for workflow tests and history recording. */
import { ApplicationFailure } from '@temporalio/common';
import type { AiActivities, CardAnalysisResult } from '../../src/activities/scraps/ai';
import { encodeEmbedding } from '../../src/db/vectors';
import type { JobActivities } from '../../src/activities/core/jobs';
import type { CardActivities } from '../../src/activities/scraps/cards';
import type { TilActivities } from '../../src/activities/scraps/til';
import type { CardAnalysis, TilResult } from '../../src/ai/scraps/answers';
import { EMBEDDING_DIMENSIONS } from '../../src/ai/types';
import type { Quiz } from '../../src/domain/scraps/quizzes';

/** A valid analysis, as the AI provider would answer. */
export const ANALYSIS: CardAnalysis = {
  title: 'B-tree indexes',
  summary: 'PostgreSQL creates B-tree indexes by default.',
  tags: ['postgresql', 'index'],
  category: 'Data',
  embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0)),
};

/** {@link ANALYSIS} as the `analyzeScrap` activity returns it (the embedding as float32 base64). */
export const ANALYSIS_RESULT: CardAnalysisResult = (({ embedding, ...fields }) => ({ ...fields, embeddingF32: encodeEmbedding(embedding).toString('base64') }))(ANALYSIS);

/** SAN-9 fixtures: the cards of a day, its TIL, and quizzes over them. */
export const TIL_CARD_IDS = ['00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-0000000000c2'];
export const TIL: TilResult = {
  title: 'TIL 2026-11-30',
  tilMarkdown: '# TIL 2026-11-30\n\n- B-tree indexes',
  embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 1 ? 1 : 0)),
};
export const QUIZZES: Quiz[] = [
  { type: 'OX', question: 'B-tree is the default index type.', answer: 'O', explanation: 'CREATE INDEX uses B-tree.', sourceCardId: TIL_CARD_IDS[0]! },
  { type: 'SHORT_ANSWER', question: 'The default index type is ___.', answer: 'B-tree', explanation: 'CREATE INDEX uses B-tree.', sourceCardId: TIL_CARD_IDS[0]! },
];
/** The automatic quiz job that storeTil returns for the workflow to start. */
export const QUIZ_JOB = {
  jobId: '00000000-0000-4000-8000-0000000000a1',
  jobType: 'RECALL_QUIZ_GENERATION' as const,
  targetId: '00000000-0000-4000-8000-0000000000b1',
  userId: '00000000-0000-4000-8000-0000000000d1',
};

/**
 * Fake activities, grouped by the task queue whose worker registers them in production (DC-2:
 * the `jobs`, `ai` and `github` queues of src/families/core.ts); each test overrides what it needs.
 */
export function fakeActivities() {
  return {
    jobs: {
      beginJob: jest.fn<ReturnType<JobActivities['beginJob']>, Parameters<JobActivities['beginJob']>>(async () => ({ proceed: true, status: 'PROCESSING' })),
      failJob: jest.fn<ReturnType<JobActivities['failJob']>, Parameters<JobActivities['failJob']>>(async () => 'FAILED'),
      startJobs: jest.fn<ReturnType<JobActivities['startJobs']>, Parameters<JobActivities['startJobs']>>(async (jobs) => jobs.map(() => 'started' as const)),
      failCancelledJob: jest.fn<ReturnType<JobActivities['failCancelledJob']>, Parameters<JobActivities['failCancelledJob']>>(
        async () => ({ status: 'FAILED', errorMessage: 'cancelled: requested by test' }),
      ),
      storeCard: jest.fn<ReturnType<CardActivities['storeCard']>, Parameters<CardActivities['storeCard']>>(async () => 'card-1'),
      storeRefinement: jest.fn<ReturnType<CardActivities['storeRefinement']>, Parameters<CardActivities['storeRefinement']>>(async () => undefined),
      startStalePendingJobs: jest.fn<ReturnType<JobActivities['startStalePendingJobs']>, Parameters<JobActivities['startStalePendingJobs']>>(
        async () => ({ examined: 0, started: 0, alreadyRunning: 0, failedToStart: 0 }),
      ),
      collectTilCards: jest.fn<ReturnType<TilActivities['collectTilCards']>, Parameters<TilActivities['collectTilCards']>>(
        async () => ({ targetDate: '2026-11-30', cardIds: TIL_CARD_IDS }),
      ),
      storeTil: jest.fn<ReturnType<TilActivities['storeTil']>, Parameters<TilActivities['storeTil']>>(async () => QUIZ_JOB),
      startCommittedJob: jest.fn<ReturnType<TilActivities['startCommittedJob']>, Parameters<TilActivities['startCommittedJob']>>(async () => 'started'),
      beginRecallQuizJob: jest.fn<ReturnType<TilActivities['beginRecallQuizJob']>, Parameters<TilActivities['beginRecallQuizJob']>>(
        async () => ({ proceed: true, status: 'PROCESSING' }),
      ),
      collectQuizCards: jest.fn<ReturnType<TilActivities['collectQuizCards']>, Parameters<TilActivities['collectQuizCards']>>(
        async () => ({ targetDate: '2026-11-30', cardIds: TIL_CARD_IDS, types: ['OX', 'SHORT_ANSWER'] }),
      ),
      storeRecallQuizzes: jest.fn<ReturnType<TilActivities['storeRecallQuizzes']>, Parameters<TilActivities['storeRecallQuizzes']>>(async () => 2),
      failRecallQuizJob: jest.fn<ReturnType<TilActivities['failRecallQuizJob']>, Parameters<TilActivities['failRecallQuizJob']>>(async () => 'FAILED'),
    },
    ai: {
      analyzeScrap: jest.fn<ReturnType<AiActivities['analyzeScrap']>, Parameters<AiActivities['analyzeScrap']>>(async () => ANALYSIS_RESULT),
      refineScrap: jest.fn<ReturnType<AiActivities['refineScrap']>, Parameters<AiActivities['refineScrap']>>(async () => ({ refinedContent: '# B-tree' })),
      generateTil: jest.fn<ReturnType<AiActivities['generateTil']>, Parameters<AiActivities['generateTil']>>(async () => TIL),
      generateQuizzes: jest.fn<ReturnType<AiActivities['generateQuizzes']>, Parameters<AiActivities['generateQuizzes']>>(async () => QUIZZES),
    },
    /** No workflow tested here calls a `github`-queue activity; a worker is created only when a test adds some. */
    github: {},
  };
}

/** The per-queue fakes of {@link fakeActivities}. */
export type FakeActivities = ReturnType<typeof fakeActivities>;

/** A retryable AI failure, as the AI activities raise it. */
export function retryableAiFailure(): ApplicationFailure {
  return ApplicationFailure.create({ message: 'model answered invalid JSON', type: 'AI_MALFORMED_OUTPUT' });
}
