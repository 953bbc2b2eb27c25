/**
 * SAN-4 start-after-commit, the one implementation: a resource (a job row, a run, a link job) is
 * committed first and its workflow started afterwards. A start that fails (Temporal down, process
 * killed) leaves the committed resource for the reconciler, which starts it by the same workflow ID,
 * so a crash between commit and start loses nothing and starts nothing twice.
 */
import type { StartOutcome } from './workflow-start';

/** Minimal logger of the caller (pino, fastify's request log, the activity log adapter). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

/** Outcome of {@link startAfterCommit}: the start's, or `start-failed` (logged, left to the reconciler). */
export type AfterCommitOutcome = StartOutcome | 'start-failed';

/**
 * Runs `start` for a committed resource; never throws. A failure is logged at warn with `ids`
 * (the resource's id fields, e.g. `{ jobId }`; never a secret) and the error.
 */
export async function startAfterCommit(log: WarnLog, ids: Readonly<Record<string, unknown>>, start: () => Promise<StartOutcome>): Promise<AfterCommitOutcome> {
  try {
    return await start();
  } catch (err) {
    log.warn({ err, ...ids }, 'workflow start failed; the reconciler will start it');
    return 'start-failed';
  }
}
