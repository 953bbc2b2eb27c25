/**
 * The AI-runs family (AR-1 … AR-10) declares itself here, once. Its runs are not async_jobs jobs:
 * their projection is ai_runs with its own state machine (src/domain/ar/run-state.ts), so it
 * declares no job types; its workflow (`aiRunWorkflow`, exported from src/workflows) runs on the
 * `jobs` queue with its projection activities, its runtime call on its own `ai-runs` queue served by
 * src/workers/ai-runs.ts (DC-2), and its reconcile pass (lost starts, lost retry signals) on the
 * `maintenance` queue by its own Schedule.
 */
import { createAiRunActivities } from '../activities/ar/runs';
import { createAiRunReconcileActivities } from '../activities/ar/reconcile';
import { createAiRuntimeActivities } from '../activities/ar/runtime';
import { arRoutes } from '../api/routes/ar';
import { AR_DECISION_PROBLEM_CODES } from '../domain/ar/decision-problem-codes';
import { AR_FAILURES } from '../domain/ar/failures';
import { AR_PROBLEM_CODES } from '../domain/ar/problem-codes';
import { validateRuntimeAnswer } from '../services/ar/answer';
import { inputBoxFromConfig } from '../services/ar/input-box';
import { arRuntimeOf, classifyRuntimeError, runtimeClientFromConfig } from '../services/ar/runtime-adapter';
import { createTemporalAiRunStarter } from '../services/ar/starter';
import { AI_RUNS_QUEUE } from '../workflows/ar/contracts';
import type { FamilyManifest } from './manifest';

/** The AR manifest. */
export const ar = {
  name: 'ar',
  jobs: {},
  failures: AR_FAILURES,
  problemCodes: [...AR_PROBLEM_CODES, ...AR_DECISION_PROBLEM_CODES],
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
        createAiRuntimeActivities({ runtime: arRuntimeOf(runtimeClientFromConfig(config), config.aiRuns.callTimeoutMs), classify: classifyRuntimeError }),
      concurrency: (config) => config.aiRuns.activityConcurrency,
    },
  ],
} as const satisfies FamilyManifest;
