/**
 * The knowledge-scrap family (SAN-1 … SAN-12) declares itself here, once: its job types and their
 * workflows, target hooks, error vocabularies, routes, its activities on the core's
 * `jobs`, `ai` and `github` queues and its recovery Schedules (SAN-6). It owns no queue. Adding a
 * SAN job type touches the family's folders and one line below.
 */
import { AI_ERRORS } from '../ai/failures';
import { createScrapsAi } from '../ai/scraps';
import { createAiActivities } from '../activities/scraps/ai';
import { createCardActivities } from '../activities/scraps/cards';
import { createGithubActivities } from '../activities/scraps/github';
import { createGithubCommitActivities } from '../activities/scraps/github-commits';
import { createGithubStarActivities, createStarRecommendationActivities } from '../activities/scraps/github-stars';
import { createSanRecoveryActivities } from '../activities/scraps/recovery';
import { createTilActivities } from '../activities/scraps/til';
import { sanRoutes } from '../api/routes/scraps';
import { SAN_ERRORS } from '../domain/scraps/errors';
import { GITHUB_ERRORS } from '../github/failures';
import { recallQuizTarget, tilCommitTarget } from '../services/scraps/targets';
import { recoverySchedule } from './core';
import { SCRAPS_CONFIG } from '../config/scraps';
import { defineFamily } from './manifest';

/** The scraps manifest. */
export const scraps = defineFamily(SCRAPS_CONFIG, {
  name: 'scraps',
  jobs: {
    CARD_ANALYSIS: 'cardAnalysisWorkflow',
    SCRAP_REFINE: 'scrapRefineWorkflow',
    TIL_GENERATION: 'tilGenerationWorkflow',
    TIL_GITHUB_COMMIT: 'tilGithubCommitWorkflow',
    RECALL_QUIZ_GENERATION: 'recallQuizGenerationWorkflow',
    GITHUB_STAR_RECOMMENDATION: 'githubStarRecommendationWorkflow',
  },
  targets: {
    RECALL_QUIZ_GENERATION: recallQuizTarget,
    TIL_GITHUB_COMMIT: tilCommitTarget,
  },
  errors: [SAN_ERRORS, AI_ERRORS, GITHUB_ERRORS],
  routes: sanRoutes,
  activities: {
    jobs: ({ db, starter }) => ({
      ...createCardActivities({ db }),
      ...createTilActivities({ db, starter }),
      ...createStarRecommendationActivities({ db }),
      ...createGithubCommitActivities({ db }),
      ...createSanRecoveryActivities({ db, starter }),
    }),
    ai: ({ db, ai }) => createAiActivities({ ai: createScrapsAi(ai), db }),
    github: ({ db, tokens, github }) => ({
      ...createGithubActivities({ db, tokens, github }),
      ...createGithubStarActivities({ db, tokens, github }),
    }),
  },
  queues: [],
  schedules: [
    recoverySchedule('recovery-missing-cards', 'recoverMissingCardsWorkflow'),
    recoverySchedule('recovery-unrefined-scraps', 'recoverUnrefinedScrapsWorkflow'),
  ],
});
