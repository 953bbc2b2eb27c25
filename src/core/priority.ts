/**
 * Task-queue Priority and Fairness of every workflow start (Temporal matching: a lower priority
 * key dispatches first; within one key, tasks of each fairness key get a share of dispatch in
 * proportion to its weight). Activities and child workflows inherit their workflow's priority, so
 * one start decides the order of all of its tasks on every queue.
 *
 * - Priority key by work class: `interactive` (a client's request) before `batch` (work the
 *   service derives by itself, e.g. extraction of polled memos) before `maintenance` (recovery,
 *   reconcilers, re-embedding, reminders, purges).
 * - Fairness key by tenant: `company:<id>` when the start carries a CompanyId search attribute
 *   (AI runs), else `user:<id>` (UserId); weights per key from config, 1 otherwise. Matching
 *   applies fairness only where the server enables it (`matching.enableFairness`); without it the
 *   keys are carried and ignored (FIFO within a priority level).
 */
import type { WorkflowClientInterceptor, WorkflowSignalWithStartInput, WorkflowStartInput } from '@temporalio/client';
import { TypedSearchAttributes, type Priority, type SearchAttributePair } from '@temporalio/common';
import { FAIRNESS_KEY_MAX_BYTES } from '../config/fairness';
import { SA_COMPANY_ID, SA_USER_ID } from './contracts';

/** Who asked for the work, which decides its priority key ({@link PRIORITY_KEYS}). */
export type WorkClass = 'interactive' | 'batch' | 'maintenance';

/** Priority key of each work class on Temporal's 1 (first) … 5 (last) scale; unkeyed tasks get 3. */
export const PRIORITY_KEYS: Readonly<Record<WorkClass, number>> = { interactive: 2, batch: 4, maintenance: 5 };

/** Fairness key of Schedule-started maintenance runs (they carry no tenant). */
export const MAINTENANCE_FAIRNESS_KEY = 'maintenance';

/** The {@link Priority} of a start of class `cls` (its fairness key comes from {@link fairnessInterceptor}). */
export function priorityOf(cls: WorkClass): Priority {
  return { priorityKey: PRIORITY_KEYS[cls] };
}

/**
 * How starts are keyed for fairness (TEMPORAL_FAIRNESS, TEMPORAL_FAIRNESS_WEIGHTS). Read at each
 * start, so a change to `enabled` applies to the next start.
 */
export interface FairnessPolicy {
  /** Attach a fairness key (and weight) to starts; false: FIFO within a priority level. */
  enabled: boolean;
  /** Weight of a fairness key (`company:<id>`, `user:<id>`, `maintenance`); absent: 1. */
  weights: ReadonlyMap<string, number>;
}


/**
 * The fairness key of a start's tenant: `company:<CompanyId>`, else `user:<UserId>`, else
 * undefined (a start without a tenant keeps the default key). Keys over 64 bytes are undefined.
 * Deterministic: workflow code may call it.
 */
export function tenantFairnessKey(given: TypedSearchAttributes | SearchAttributePair[] | undefined): string | undefined {
  const attrs = Array.isArray(given) ? new TypedSearchAttributes(given) : given;
  const company = attrs?.get(SA_COMPANY_ID);
  const user = attrs?.get(SA_USER_ID);
  const key = company ? `company:${company}` : user ? `user:${user}` : undefined;
  return key !== undefined && new TextEncoder().encode(key).length <= FAIRNESS_KEY_MAX_BYTES ? key : undefined;
}

/**
 * The start's priority with the tenant's fairness key and weight added, when the policy is on and
 * the start names neither: what {@link fairnessInterceptor} sends.
 */
export function withFairness(policy: FairnessPolicy, priority: Priority | undefined, attrs: TypedSearchAttributes | SearchAttributePair[] | undefined): Priority | undefined {
  if (!policy.enabled || priority?.fairnessKey) return priority;
  const fairnessKey = tenantFairnessKey(attrs);
  if (fairnessKey === undefined) return priority;
  const weight = policy.weights.get(fairnessKey);
  return { ...priority, fairnessKey, ...(weight !== undefined && priority?.fairnessWeight === undefined ? { fairnessWeight: weight } : {}) };
}

/** Client interceptor that keys every workflow start (and signal-with-start) by its tenant ({@link withFairness}). */
export function fairnessInterceptor(policy: FairnessPolicy): WorkflowClientInterceptor {
  const keyed = <T extends WorkflowStartInput | WorkflowSignalWithStartInput>(input: T): T => {
    const priority = withFairness(policy, input.options.priority, input.options.typedSearchAttributes);
    return priority === input.options.priority ? input : { ...input, options: { ...input.options, priority } };
  };
  return {
    startWithDetails: (input, next) => next(keyed(input)),
    signalWithStart: (input, next) => next(keyed(input)),
  };
}
