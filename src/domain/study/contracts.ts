/**
 * Contracts of the study family's workflows (ST-3 … ST-6), shared by the API, the activities, the
 * poller and the workflows: the family's own task queue, the version-keyed workflow ID, and the
 * inputs of the poll and extraction workflows. Workflow-safe: no I/O.
 */
import { ownTaskQueue } from '../../core/contracts';

/** Logical name of the family's own task queue (ST-6, DC-2), declared by the family's manifest (src/families/study.ts). */
export const STUDY_CARDS_QUEUE = 'study-cards';

/** Search-attribute JobType of an extraction workflow (not an async_jobs job). */
export const STUDY_CARD_EXTRACT_JOB_TYPE = 'STUDY_CARD_EXTRACT';

/** A polymorphic memo-card source (the `StudySourceKind` enum). */
export type StudySourceKind = 'study_question' | 'knowledge_card';

/** Every source kind, in the poller's default order. */
export const STUDY_SOURCE_KINDS: readonly StudySourceKind[] = ['study_question', 'knowledge_card'];

/**
 * ST-3 workflow ID of the extraction of one source version:
 * `study-card-extract:<kind>:<id>:<version>` with the version as ISO 8601 in UTC, milliseconds
 * (the column's precision), so Temporal and the database agree that a version is extracted once.
 */
export function studyCardExtractWorkflowId(kind: StudySourceKind, sourceId: string, sourceVersion: Date | string): string {
  const v = typeof sourceVersion === 'string' ? new Date(sourceVersion) : sourceVersion;
  return `study-card-extract:${kind}:${sourceId}:${v.toISOString()}`;
}

/** Task queues an extraction uses: its bookkeeping and work on the family's own queue. */
export interface StudyCardQueues {
  studyCards: string;
}

/** The deployed queues under `prefix` (TEMPORAL_TASK_QUEUE_PREFIX). */
export function studyCardQueues(prefix = ''): StudyCardQueues {
  return { studyCards: ownTaskQueue(STUDY_CARDS_QUEUE, prefix) };
}

/** Attempt policy of an extraction, from config (ST_EXTRACT_*), passed in so the workflow stays config-free. */
export interface ExtractionPolicy {
  /** Deadline of one extraction call (gather + AI + guards), ms. */
  callTimeoutMs: number;
  /** A call whose worker stops heartbeating this long fails llm_timeout, ms. */
  heartbeatTimeoutMs: number;
  /** Delay before the next attempt, ms. */
  retryDelayMs: number;
}

/** Input of {@link studyCardExtractWorkflow}: one job row and the version it extracts. */
export interface StudyCardExtractInput {
  jobId: string;
  userId: string;
  sourceKind: StudySourceKind;
  sourceId: string;
  /** ISO 8601 of the job's source_version. */
  sourceVersion: string;
  queues: StudyCardQueues;
  policy: ExtractionPolicy;
}

/** What an extraction workflow returns (its job's final status). */
export interface StudyCardExtractResult {
  jobId: string;
  status: 'completed' | 'skipped' | 'failed' | 'not_run';
  errorCode: string | null;
  attempts: number;
}

/** Input of the poller's workflow (ST-3), from config (ST_POLL_*). */
export interface StudyCardPollInput {
  limit: number;
  sourceKinds: StudySourceKind[];
  restartGraceSeconds: number;
}

/** What one poll did. */
export interface StudyCardPollResult {
  /** New jobs enqueued (≤ limit) and started. */
  enqueued: number;
  /** Pending jobs whose lost start was made again. */
  restarted: number;
}
