/**
 * AR-7/PO-1 housekeeping of Idempotency-Key records: the `maintenance` queue's activity behind the
 * `purge-idempotency-records` Schedule. Expired records go in short batches
 * (src/core/idempotency.ts); a key whose record is gone is new again.
 */
import { heartbeat } from '@temporalio/activity';
import { purgeExpiredIdempotencyRecords, type IdempotencyDb } from '../../core/idempotency';

/** Input of {@link IdempotencyPurgeActivities.purgeIdempotencyRecords}. */
export interface PurgeIdempotencyInput {
  /** Rows per DELETE statement (default 1000). */
  batchSize?: number;
}

/** Activities of the purge. */
export interface IdempotencyPurgeActivities {
  /** Deletes every record expired by now; returns how many went. */
  purgeIdempotencyRecords(input: PurgeIdempotencyInput): Promise<{ deleted: number }>;
}

/** The purge activities over `db`. */
export function createIdempotencyPurgeActivities(deps: { db: IdempotencyDb }): IdempotencyPurgeActivities {
  return {
    async purgeIdempotencyRecords(input) {
      heartbeat();
      const deleted = await purgeExpiredIdempotencyRecords(deps.db, { batchSize: input.batchSize });
      return { deleted };
    },
  };
}
