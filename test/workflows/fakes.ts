/** Typed jest fakes of every activity, for workflow tests and history recording. */
import { ApplicationFailure } from '@temporalio/common';
import type { AiActivities } from '../../src/activities/ai';
import type { JobActivities } from '../../src/activities/jobs';
import { EMBEDDING_DIMENSIONS, type CardAnalysis } from '../../src/ai/types';

/** A valid analysis, as the AI runtime would answer. */
export const ANALYSIS: CardAnalysis = {
  title: 'B-tree indexes',
  summary: 'PostgreSQL creates B-tree indexes by default.',
  tags: ['postgresql', 'index'],
  category: 'Data',
  embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0)),
};

/** Fake activities; each test overrides what it needs. */
export function fakeActivities() {
  return {
    beginJob: jest.fn<ReturnType<JobActivities['beginJob']>, Parameters<JobActivities['beginJob']>>(async () => ({ proceed: true, status: 'PROCESSING' })),
    failJob: jest.fn<ReturnType<JobActivities['failJob']>, Parameters<JobActivities['failJob']>>(async () => 'FAILED'),
    storeCard: jest.fn<ReturnType<JobActivities['storeCard']>, Parameters<JobActivities['storeCard']>>(async () => 'card-1'),
    storeRefinement: jest.fn<ReturnType<JobActivities['storeRefinement']>, Parameters<JobActivities['storeRefinement']>>(async () => undefined),
    startStalePendingJobs: jest.fn<ReturnType<JobActivities['startStalePendingJobs']>, Parameters<JobActivities['startStalePendingJobs']>>(
      async () => ({ examined: 0, started: 0, alreadyRunning: 0, failedToStart: 0 }),
    ),
    analyzeScrap: jest.fn<ReturnType<AiActivities['analyzeScrap']>, Parameters<AiActivities['analyzeScrap']>>(async () => ANALYSIS),
    refineScrap: jest.fn<ReturnType<AiActivities['refineScrap']>, Parameters<AiActivities['refineScrap']>>(async () => ({ refinedContent: '# B-tree' })),
  };
}

/** A retryable AI failure, as the AI activities raise it. */
export function retryableAiFailure(): ApplicationFailure {
  return ApplicationFailure.create({ message: 'model answered invalid JSON', type: 'AI_MALFORMED_OUTPUT' });
}
