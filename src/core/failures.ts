/**
 * One catalogue of Temporal failure types with their retry class (DC-3, SAN-4). Activities and
 * workflows throw failures only through {@link failure}, so a type is always catalogued and its
 * retry class decided in one place. Each boundary or family declares its own entries with
 * {@link defineFailures}; the catalogues are merged by the family list. Workflow-safe, no I/O.
 */
import { ApplicationFailure, type Duration } from '@temporalio/common';

/** `non-retryable`: deterministic, another attempt gives the same answer; `retryable`: transient. */
export type RetryClass = 'retryable' | 'non-retryable';

/** One catalogued failure type. */
export interface FailureSpec {
  retry: RetryClass;
  /** What the failure means, for operators reading a history. */
  description: string;
}

/** A catalogue: failure type → its spec. */
export type FailureCatalogue = Readonly<Record<string, FailureSpec>>;

/** Declares a catalogue, keeping its literal keys for type-checked {@link failure} calls. */
export function defineFailures<const C extends Record<string, FailureSpec>>(catalogue: C): C {
  return catalogue;
}

/** Options of {@link failure}. */
export interface FailureOptions {
  cause?: Error | undefined;
  /** A dependency's requested wait (e.g. Retry-After); only for retryable types. */
  nextRetryDelay?: Duration | undefined;
  details?: unknown[];
}

/**
 * Builds the ApplicationFailure of catalogued `type`: non-retryable exactly when the catalogue says
 * so. Throw the result.
 */
export function failure<C extends FailureCatalogue>(
  catalogue: C,
  type: keyof C & string,
  message: string,
  opts: FailureOptions = {},
): ApplicationFailure {
  const spec = catalogue[type];
  const retryable = spec?.retry === 'retryable';
  return ApplicationFailure.create({
    message,
    type,
    nonRetryable: !retryable,
    nextRetryDelay: retryable ? opts.nextRetryDelay : undefined,
    cause: opts.cause,
    details: opts.details,
  });
}

/** Failure types of the job core itself. */
export const CORE_FAILURES = defineFailures({
  JOB_NOT_FOUND: { retry: 'non-retryable', description: 'the job row does not exist' },
  JOB_NOT_ACTIVE: { retry: 'non-retryable', description: 'the job row is not PROCESSING, so the result cannot complete it' },
  JOB_FAILED: { retry: 'non-retryable', description: 'the job workflow failed; the row is FAILED with the cause chain' },
  JOB_CANCELLED: { retry: 'non-retryable', description: 'the job workflow was cancelled; the row is FAILED' },
  PROJECTION_REJECTED: {
    retry: 'non-retryable',
    description: 'the database rejected the projection write deterministically (data exception, constraint); retrying cannot help',
  },
  DEPENDENCY_UNAVAILABLE: { retry: 'retryable', description: 'a dependency (database, Temporal, provider) is unreachable; waited out' },
  DATABASE_ERROR: {
    retry: 'retryable',
    description: 'a database error of no known class (e.g. a serialisation conflict, a raised exception); retried within the bound',
  },
});
