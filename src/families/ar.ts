/**
 * The AI-runs family (AR-1 … AR-10). In this branch (h/ar-decisions) only its routes: decisions,
 * Tasks and the run list; h/ar-run's manifest (job types, workflows, activities, queues) replaces
 * this one at merge, keeping `routes: arRoutes` and adding AR_DECISION_PROBLEM_CODES to its codes.
 */
import { arRoutes } from '../api/routes/ar';
import { PAGINATION_PROBLEM_CODES } from '../api/pagination';
import { AR_DECISION_PROBLEM_CODES } from '../domain/ar/decision-problem-codes';
import type { FamilyManifest } from './manifest';

/** The AR manifest (routes only, in this branch). */
export const ar = {
  name: 'ar',
  jobs: {},
  failures: {},
  problemCodes: [...AR_DECISION_PROBLEM_CODES, ...PAGINATION_PROBLEM_CODES],
  routes: arRoutes,
  activities: {},
  schedules: [],
  queues: [],
} as const satisfies FamilyManifest;
