/**
 * Problem codes (RFC 9457 problem details with a stable `code`) and their registry: each code is
 * declared once with its HTTP status and title, in the core's or a family's error vocabulary
 * (src/core/errors.ts, src/domain/<family>/errors.ts); the API's one error handler answers a
 * {@link DomainError} with the status and title registered for its code. Workflow-safe, no I/O.
 */
import { titleOf, type DomainError } from './domain-error';

/** HTTP statuses a problem answers with. */
export type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 412 | 413 | 415 | 422 | 428 | 429 | 431 | 500 | 502 | 503;

/** One declared problem code. */
export interface ProblemSpec {
  /** HTTP status of the answer. */
  readonly status: ProblemStatus;
  /** Further statuses the same condition answers with at some call sites; the thrower names one. */
  readonly otherStatuses?: readonly ProblemStatus[];
  /** `title` of the problem document; default: the code in title case (`NO_CARDS_FOR_DATE` → "No Cards For Date"). */
  readonly title?: string;
  /** When the code is answered, for the docs and a reader of the vocabulary. */
  readonly description: string;
}

/** Problem codes → their specs (the keys are the codes clients see). */
export type ProblemCatalogue = Readonly<Record<string, ProblemSpec>>;

/** Declares a catalogue, keeping its literal codes (and their statuses) for type-checked throws. */
export function defineProblems<const C extends Record<string, ProblemSpec>>(catalogue: C): C {
  return catalogue;
}

/** A problem code as the registry holds it. */
export interface RegisteredProblem {
  readonly code: string;
  /** The default status. */
  readonly status: ProblemStatus;
  /** Every status the code may answer with (the default first). */
  readonly statuses: readonly ProblemStatus[];
  readonly title: string;
  readonly description: string;
}

/** Every problem code the API answers with. */
export interface ProblemRegistry {
  /** The registered code, or undefined when no vocabulary declares it. */
  get(code: string): RegisteredProblem | undefined;
  /** Every registered code, in declaration order. */
  readonly codes: readonly string[];
}

/**
 * Merges catalogues into one registry.
 * @throws Error when a code is declared twice with different statuses or titles.
 */
export function problemRegistry(catalogues: readonly ProblemCatalogue[]): ProblemRegistry {
  const byCode = new Map<string, RegisteredProblem>();
  for (const catalogue of catalogues) {
    for (const [code, spec] of Object.entries(catalogue)) {
      const entry: RegisteredProblem = {
        code,
        status: spec.status,
        statuses: [spec.status, ...(spec.otherStatuses ?? [])],
        title: spec.title ?? titleOf(code),
        description: spec.description,
      };
      const prev = byCode.get(code);
      if (prev && (prev.statuses.join() !== entry.statuses.join() || prev.title !== entry.title)) {
        throw new Error(`problem code ${code} is declared twice: ${prev.statuses.join('/')} "${prev.title}" and ${entry.statuses.join('/')} "${entry.title}"`);
      }
      byCode.set(code, entry);
    }
  }
  return { get: (code) => byCode.get(code), codes: [...byCode.keys()] };
}


/**
 * The status and title `err` answers with: its code's default status, or the one the thrower chose
 * among the code's statuses; its own title, else the registered one. Undefined when the code, or
 * the chosen status, is not registered (a bug in the thrower).
 */
export function resolveProblem(registry: ProblemRegistry, err: DomainError): { status: ProblemStatus; title: string } | undefined {
  const p = registry.get(err.code);
  if (!p) return undefined;
  const status = err.status === undefined ? p.status : p.statuses.find((s) => s === err.status);
  return status === undefined ? undefined : { status, title: err.title ?? p.title };
}
