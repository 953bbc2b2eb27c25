/**
 * The job core's metrics: starts, terminal transitions and their duration and recovery actions by
 * job type, and rejected transitions by projection (label values, never imports: the core names no
 * family).
 * Registered in the process registry (src/telemetry/metrics.ts).
 */
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '../telemetry/metrics';

/** Bucket bounds of the job duration histogram (enqueue → terminal), in seconds: 0.1 s … 2 h. */
export const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200];

const jobsStarted = new Counter({
  name: 'jobs_started_total',
  help: 'Job workflow starts by job type and outcome (started, already-running, failed)',
  labelNames: ['job_type', 'outcome'] as const,
  registers: [metricsRegistry],
});

const jobsCompleted = new Counter({
  name: 'jobs_completed_total',
  help: 'Jobs moved to COMPLETED by the process that made the transition, by job type',
  labelNames: ['job_type'] as const,
  registers: [metricsRegistry],
});

const jobsFailed = new Counter({
  name: 'jobs_failed_total',
  help: 'Jobs moved to FAILED by a job transition (the projection activity), by job type',
  labelNames: ['job_type'] as const,
  registers: [metricsRegistry],
});

const jobDuration = new Histogram({
  name: 'job_duration_seconds',
  help: 'Time from enqueue (async_jobs.created_at) to the terminal transition, by job type and terminal status',
  labelNames: ['job_type', 'status'] as const,
  buckets: JOB_BUCKETS,
  registers: [metricsRegistry],
});

const transitionsRejected = new Counter({
  name: 'projection_transitions_rejected_total',
  help: 'Guarded projection transitions that changed nothing (late or duplicate), by projection table and target status',
  labelNames: ['projection', 'to'] as const,
  registers: [metricsRegistry],
});

const recoveryActions = new Counter({
  name: 'job_recovery_actions_total',
  help: 'What the reconciler and the recovery rules did, by rule and action',
  labelNames: ['rule', 'action'] as const,
  registers: [metricsRegistry],
});

/** Outcome label of {@link jobMetrics.started}. */
export type StartMetricOutcome = 'started' | 'already-running' | 'failed';

/** Recording functions of the job core; every one is synchronous and never throws. */
export const jobMetrics = {
  /** One workflow start attempt (src/core/workflow-start.ts), by job type (or the kind of a workflow that runs no async_jobs row). */
  started(jobType: string, outcome: StartMetricOutcome): void {
    jobsStarted.inc({ job_type: jobType, outcome });
  },

  /**
   * A guarded transition that changed the row (src/core/projection.ts): COMPLETED and FAILED count
   * and observe the time since `createdAt` (for a re-run job, since its first enqueue).
   */
  transitioned(jobType: string, to: string, createdAt: Date, now: Date = new Date()): void {
    if (to !== 'COMPLETED' && to !== 'FAILED') return;
    (to === 'COMPLETED' ? jobsCompleted : jobsFailed).inc({ job_type: jobType });
    jobDuration.observe({ job_type: jobType, status: to }, Math.max(0, (now.getTime() - createdAt.getTime()) / 1000));
  },

  /**
   * A guarded transition of a `projection` table's row that was not legal from the row's status
   * (late or duplicate), or hit no row (src/core/guarded-transition.ts).
   */
  rejected(projection: string, to: string): void {
    transitionsRejected.inc({ projection, to });
  },

  /** The actions a reconcile or recovery rule took on one item (src/core/reconciler.ts `countItem`). */
  recovery(rule: string, actions: readonly string[]): void {
    for (const action of actions) recoveryActions.inc({ rule, action });
  },
};
