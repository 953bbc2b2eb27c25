/**
 * The AI-runs family (AR-1 … AR-10) declares itself here, once. Its runs are not async_jobs jobs:
 * their projection is ai_runs with its own state machine (src/domain/ai-runs/run-state.ts), so it
 * declares no job types; its workflow (`aiRunWorkflow`, exported from src/workflows) runs on the
 * `jobs` queue with its projection activities, its runtime call on its own `ai-runs` queue (DC-2,
 * AR-2/AR-8: a slow runtime cannot starve other work), and its reconcile pass (lost starts, lost
 * retry signals) on the `maintenance` queue by its own Schedule.
 */
import { createAiRunActivities } from '../activities/ai-runs/runs';
import { createAiRunReconcileActivities } from '../activities/ai-runs/reconcile';
import { createAiRuntimeActivities } from '../activities/ai-runs/runtime-call';
import { arRoutes } from '../api/routes/ai-runs';
import { AR_ERRORS } from '../domain/ai-runs/errors';
import { validateRuntimeAnswer } from '../services/ai-runs/answer-validation';
import { inputBoxFromConfig } from '../services/ai-runs/input-box';
import { aiRuntimeCallerOf, classifyRuntimeError, runtimeClientFromConfig } from '../services/ai-runs/runtime-caller';
import { createTemporalAiRunStarter } from '../services/ai-runs/starter';
import { AI_RUNS_QUEUE } from '../domain/ai-runs/contracts';
import { reconcileSchedule } from './core';
import { AI_RUNS_CONFIG } from '../config/ai-runs';
import { defineFamily } from './manifest';

/** The AI-runs manifest. */
export const aiRuns = defineFamily(AI_RUNS_CONFIG, {
  name: 'ai-runs',
  jobs: {},
  errors: [AR_ERRORS],
  routes: arRoutes,
  activities: {
    jobs: ({ db }) => createAiRunActivities({ db, validate: validateRuntimeAnswer }),
    maintenance: ({ db, client, config }) =>
      createAiRunReconcileActivities({ db, starter: createTemporalAiRunStarter(client, config), box: inputBoxFromConfig(config) }),
  },
  queues: [
    {
      name: AI_RUNS_QUEUE,
      summary: 'the AI runtime calls of AI runs (AR-2, AR-8)',
      activityConcurrency: { env: 'AI_RUNS_ACTIVITY_CONCURRENCY', of: (c) => c.aiRuns.activityConcurrency },
      activities: ({ config }) =>
        createAiRuntimeActivities({ caller: aiRuntimeCallerOf(runtimeClientFromConfig(config), config.aiRuns.callTimeoutMs), classify: classifyRuntimeError }),
      describe: (c) => ({ runtime: c.aiRuns.runtime }),
    },
  ],
  schedules: [reconcileSchedule('reconcile-ai-runs', 'reconcileAiRunsWorkflow')],
});
