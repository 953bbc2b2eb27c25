/**
 * The AI-runs family (AR-1 … AR-10) declares itself here, once. Its runs are not async_jobs jobs:
 * their projection is ai_runs with its own state machine (src/domain/ai-runs/run-state.ts), so it
 * declares no job types; its workflow (`aiRunWorkflow`, exported from src/workflows) runs on the
 * `jobs` queue with its projection activities, its runtime call on its own `ai-runs` queue served by
 * src/workers/ai-runs.ts (DC-2), and its reconcile pass (lost starts, lost retry signals) on the
 * `maintenance` queue by its own Schedule.
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
import type { FamilyManifest } from './manifest';

/** The AR manifest. */
export const ar = {
  name: 'ai-runs',
  jobs: {},
  errors: [AR_ERRORS],
  routes: arRoutes,
  activities: {
    jobs: ({ db }) => createAiRunActivities({ db, validate: validateRuntimeAnswer }),
    maintenance: ({ db, client, config }) =>
      createAiRunReconcileActivities({ db, starter: createTemporalAiRunStarter(client, config), box: inputBoxFromConfig(config) }),
  },
  schedules: [{ name: 'reconcile-ai-runs', workflow: 'reconcileAiRunsWorkflow', kind: 'reconcile' }],
  queues: [],
  ownQueues: [
    {
      name: AI_RUNS_QUEUE,
      activities: ({ config }) =>
        createAiRuntimeActivities({ caller: aiRuntimeCallerOf(runtimeClientFromConfig(config), config.aiRuns.callTimeoutMs), classify: classifyRuntimeError }),
      concurrency: (config) => config.aiRuns.activityConcurrency,
    },
  ],
} as const satisfies FamilyManifest;
