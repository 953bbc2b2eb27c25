/**
 * SAN-10/DC-3 state machine of the til_github_commits projection: PENDING → PROCESSING →
 * COMPLETED | FAILED, and PENDING → FAILED. A commit row never re-opens: a new request makes a new
 * commit. Workflow-safe, no I/O.
 */
import { JOB_STATUSES } from '../../core/contracts';
import { defineStateMachine } from '../../core/state-machine';

/** The til_github_commits table (its status values are the async_jobs ones). */
export const TIL_GITHUB_COMMIT_STATES = defineStateMachine({
  projection: 'til_github_commits',
  states: JOB_STATUSES,
  worker: {
    PENDING: ['PROCESSING', 'FAILED'],
    PROCESSING: ['COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
  },
});
