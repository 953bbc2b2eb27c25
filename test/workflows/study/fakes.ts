/** In-memory activities of the study family's workflows (ST-3 … ST-6), for workflow tests and history recording (no jest: tsx runs the recorder). */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { StudyCardActivities } from '../../../src/activities/study/cards';
import type { StudyCardExtractInput } from '../../../src/domain/study/contracts';

/** One scripted outcome of an extraction call: a card batch, or a failure of the given type. */
export type ExtractStep = 'ok' | { type: string; message?: string; details?: unknown[] } | 'hang';

type Acts = StudyCardActivities;

/** The job row as the fakes keep it. */
export interface FakeJob {
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'skipped';
  attempts: number;
  maxAttempts: number;
  errorCode: string | null;
}

/** Fake `study-cards` activities over one in-memory job row; `steps` script the extraction calls (the last repeats). */
export function fakeStudyCardActivities(steps: ExtractStep[] = ['ok'], opts: { ready?: boolean; polled?: StudyCardExtractInput[] } = {}) {
  const job: FakeJob = { status: 'pending', attempts: 0, maxAttempts: 2, errorCode: null };
  let calls = 0;
  /** Activity names in call order. */
  const log: string[] = [];
  const record = <F extends (...args: never[]) => Promise<unknown>>(name: string, fn: (...args: Parameters<F>) => ReturnType<F>): F =>
    (async (...args: Parameters<F>) => {
      log.push(name);
      return fn(...args);
    }) as F;
  /** The steps the one-activity attempt calls, looked up when called. */
  const inner: { acts?: Pick<Acts, 'beginStudyCardAttempt' | 'extractStudyCards' | 'storeStudyCards'> } = {};
  const acts = {
    pollStudyCardSources: record<Acts['pollStudyCardSources']>('pollStudyCardSources', async () => ({
      enqueued: (opts.polled ?? []).map((input) => ({ workflowId: `study-card-extract:${input.sourceKind}:${input.sourceId}:${input.sourceVersion}`, input })),
      stale: [],
    })),
    beginStudyCardAttempt: record<Acts['beginStudyCardAttempt']>('beginStudyCardAttempt', async ({ attempt }) => {
      if (job.status !== 'pending' && job.status !== 'processing') return { ...job, proceed: false };
      if (opts.ready === false) {
        Object.assign(job, { status: 'skipped', attempts: attempt, errorCode: 'no_ready_explanation' });
        return { ...job, proceed: false };
      }
      Object.assign(job, { status: 'processing', attempts: attempt });
      return { ...job, proceed: true };
    }),
    extractStudyCards: record<Acts['extractStudyCards']>('extractStudyCards', async () => {
      calls += 1;
      const step = steps[Math.min(calls, steps.length) - 1]!;
      if (step === 'hang') {
        await Context.current().sleep(10 * 60_000); // never heartbeats; cancellable at worker shutdown
        throw new Error('unreachable');
      }
      if (step !== 'ok') throw ApplicationFailure.create({ message: step.message ?? step.type, type: step.type, details: step.details });
      return {
        cards: [{ kind: 'basic' as const, cue: 'What is a partial index?', answer: 'an index over a subset of rows', clozeText: null, normalizedKey: 'k1', evidence: [{ ref: 'explanation', quote: 'A partial index is an index over a subset of rows.' }] }],
        returned: 2,
        dropped: { answer_leak: 1 },
        needsReview: null,
        contextRefs: [],
      };
    }),
    failStudyCardAttempt: record<Acts['failStudyCardAttempt']>('failStudyCardAttempt', async (a) => {
      Object.assign(job, { errorCode: a.code, status: a.final ? 'failed' : 'processing' });
      return { ...job };
    }),
    skipStudyCardJob: record<Acts['skipStudyCardJob']>('skipStudyCardJob', async () => {
      Object.assign(job, { status: 'skipped', errorCode: 'no_ready_explanation' });
      return { ...job };
    }),
    abandonStudyCardJob: record<Acts['abandonStudyCardJob']>('abandonStudyCardJob', async () => {
      Object.assign(job, { status: 'failed', errorCode: 'unknown' });
      return { ...job };
    }),
    storeStudyCards: record<Acts['storeStudyCards']>('storeStudyCards', async (a) => {
      Object.assign(job, { status: 'completed', errorCode: a.cards.length === 0 ? 'all_dropped' : null });
      return { status: 'completed', errorCode: job.errorCode, added: a.cards.length, kept: 0, retired: 0, dropped: a.dropped };
    }),
    failStudyCardCall: record<Acts['failStudyCardCall']>('failStudyCardCall', async (a) => {
      if (job.status !== 'pending' && job.status !== 'processing') return { ...job };
      Object.assign(job, { errorCode: a.code, attempts: a.attempt, status: a.attempt >= job.maxAttempts ? 'failed' : 'processing' });
      return { ...job };
    }),
    /** begin, the scripted call and the store in one activity, as the real one (each step looked up when called, so a test may replace it). */
    runStudyCardAttempt: record<Acts['runStudyCardAttempt']>('runStudyCardAttempt', async (a) => {
      const begin = (await inner.acts!.beginStudyCardAttempt(a))!;
      if (!begin.proceed) return { outcome: 'not-begun', state: begin };
      const extracted = await inner.acts!.extractStudyCards(a);
      try {
        return { outcome: 'stored', stored: await inner.acts!.storeStudyCards({ ...a, ...extracted }) };
      } catch {
        return { outcome: 'extracted', extracted };
      }
    }),
  };
  inner.acts = acts;
  return { acts: acts satisfies Partial<Acts>, job, log, calls: () => calls };
}

/** An extraction input on `queue`. */
export function extractInput(queue: string, overrides: Partial<StudyCardExtractInput> = {}): StudyCardExtractInput {
  return {
    jobId: '11111111-1111-4111-8111-1111111111a1',
    userId: '33333333-3333-4333-8333-3333333333a1',
    sourceKind: 'study_question',
    sourceId: '22222222-2222-4222-8222-2222222222a1',
    sourceVersion: '2026-12-01T16:00:00.250Z',
    queues: { studyCards: queue },
    policy: { callTimeoutMs: 60_000, heartbeatTimeoutMs: 5_000, retryDelayMs: 1_000 },
    ...overrides,
  };
}
