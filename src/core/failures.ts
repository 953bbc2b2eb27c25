/**
 * Temporal failure types with their retry class (DC-3, SAN-4). Activities and workflows throw
 * failures only through {@link failure}, so a type is always catalogued and its retry class decided
 * in one place: the error vocabulary of the core, of a family or of a shared adapter
 * (src/core/errors.ts). Workflow-safe, no I/O.
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

/**
 * Merges catalogues into one (the registry's view of every failure type).
 * @throws Error when a type is declared with two retry classes.
 */
export function mergeFailureCatalogues(catalogues: readonly FailureCatalogue[]): FailureCatalogue {
  const out: Record<string, FailureSpec> = {};
  for (const c of catalogues) {
    for (const [type, spec] of Object.entries(c)) {
      const prev = out[type];
      if (prev && prev.retry !== spec.retry) throw new Error(`failure type ${type} is declared with two retry classes`);
      out[type] = spec;
    }
  }
  return out;
}
