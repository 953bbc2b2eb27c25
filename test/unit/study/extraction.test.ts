/** The study family's pure pieces of the extraction job: ST-4 codes, the version-keyed workflow ID, source readiness, evidence origins, stored card fields. */
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { toStoredCard } from '../../../src/activities/study/cards';
import { EXTRACTION_ERROR_CODES, RETRIED_CODES, extractionCodeOf, extractionOutcome } from '../../../src/domain/study/errors';
import { evidenceOrigin, notReadyReason, type StudySource } from '../../../src/services/study/sources';
import { studyCardExtractWorkflowId } from '../../../src/domain/study/contracts';
import { classifyExtractionFailure } from '../../../src/workflows/study/extract';

const activityFailure = (cause: Error) => new ActivityFailure('extractStudyCards failed', 'extractStudyCards', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);

describe('ST-4 codes', () => {
  test('parse_fail, llm_timeout and unknown are retried; all_dropped completes; no_ready_explanation skips', () => {
    expect(EXTRACTION_ERROR_CODES.map((c) => [c, extractionOutcome(c)])).toEqual([
      ['parse_fail', 'retry'], ['llm_timeout', 'retry'], ['unknown', 'retry'], ['all_dropped', 'complete'], ['no_ready_explanation', 'skip'],
    ]);
    expect(RETRIED_CODES).toEqual(['parse_fail', 'llm_timeout', 'unknown']);
  });

  test('the AI boundary code or a timeout decides the code', () => {
    expect(extractionCodeOf({ aiCode: 'MALFORMED_OUTPUT' })).toBe('parse_fail');
    expect(extractionCodeOf({ aiCode: 'TIMEOUT' })).toBe('llm_timeout');
    expect(extractionCodeOf({ timeout: 'deadline' })).toBe('llm_timeout');
    expect(extractionCodeOf({ timeout: 'heartbeat' })).toBe('unknown');
    expect(extractionCodeOf({ aiCode: 'BAD_REQUEST' })).toBe('unknown');
    expect(extractionCodeOf({})).toBe('unknown');
  });

  test('a failed call is classified from its Temporal failure, outages apart', () => {
    const app = (type: string, extra: Partial<Parameters<typeof ApplicationFailure.create>[0]> = {}) => activityFailure(ApplicationFailure.create({ message: 'm', type, ...extra }));
    expect(classifyExtractionFailure(app('AI_MALFORMED_OUTPUT'))).toMatchObject({ code: 'parse_fail', class: 'retryable' });
    expect(classifyExtractionFailure(app('AI_UPSTREAM_UNAVAILABLE', { nextRetryDelay: 1500 }))).toMatchObject({ code: 'unknown', class: 'outage', retryAfterMs: 1500 });
    expect(classifyExtractionFailure(app('AI_RATE_LIMITED'))).toMatchObject({ class: 'outage' });
    expect(classifyExtractionFailure(app('STUDY_EXTRACTION_ATTEMPT_FAILED', { details: [{ code: 'no_ready_explanation' }] }))).toMatchObject({ code: 'no_ready_explanation', class: 'terminal' });
    expect(classifyExtractionFailure(app('STUDY_EXTRACTION_ATTEMPT_FAILED', { details: [{ code: 'bogus' }] }))).toMatchObject({ code: 'unknown', class: 'retryable' });
    expect(classifyExtractionFailure(activityFailure(new TimeoutFailure('t', undefined, TimeoutType.HEARTBEAT)))).toMatchObject({ code: 'unknown', class: 'lease-expired' });
    expect(classifyExtractionFailure(activityFailure(new TimeoutFailure('t', undefined, TimeoutType.START_TO_CLOSE)))).toMatchObject({ code: 'llm_timeout', class: 'deadline' });
  });
});

describe('ST-3 workflow ID', () => {
  test('carries kind, id and the version in UTC with milliseconds', () => {
    const id = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
    expect(studyCardExtractWorkflowId('study_question', id, new Date('2026-12-01T18:00:00.5+02:00'))).toBe(`study-card-extract:study_question:${id}:2026-12-01T16:00:00.500Z`);
    expect(studyCardExtractWorkflowId('knowledge_card', id, '2026-12-01T16:00:00Z')).toBe(`study-card-extract:knowledge_card:${id}:2026-12-01T16:00:00.000Z`);
  });
});

describe('sources', () => {
  const v = new Date('2026-12-01T16:00:00.250Z');
  const source: StudySource = {
    kind: 'study_question', id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', userId: 'u', topicId: null, topicName: null,
    question: 'q', userAnswer: null, explanation: 'An explanation.', version: v, embedding: null,
  };
  test('no_ready_explanation: vanished, no explanation, or a newer version than the job’s', () => {
    expect(notReadyReason(source, v)).toBeUndefined();
    expect(notReadyReason(null, v)).toMatch(/no longer exists/);
    expect(notReadyReason({ ...source, explanation: '  ' }, v)).toMatch(/no explanation/);
    expect(notReadyReason({ ...source, version: new Date(v.getTime() + 1) }, v)).toMatch(/now version 2026-12-01T16:00:00.251Z/);
  });
  test('an evidence ref names the source itself or a retrieved passage', () => {
    expect(evidenceOrigin('explanation', source)).toEqual({ kind: 'study_question', id: source.id });
    expect(evidenceOrigin('knowledge_card:0A1B2C3D-4D5E-4F60-8A7B-9C0D1E2F3A4B', source)).toEqual({ kind: 'knowledge_card', id: '0a1b2c3d-4d5e-4f60-8a7b-9c0d1e2f3a4b' });
    expect(evidenceOrigin('knowledge_card:not-a-uuid', source)).toEqual({ kind: 'study_question', id: source.id });
  });
});

test('a stored cloze card keeps its text; its answer is its deletions’ answers', () => {
  const evidence = [{ ref: 'explanation', quote: 'B-trees keep keys sorted.' }];
  expect(toStoredCard({ kind: 'cloze', clozeText: '{{c1::B-trees}} keep keys {{c2::sorted}}.', evidence }, 'k')).toEqual({
    kind: 'cloze', cue: null, answer: 'B-trees · sorted', clozeText: '{{c1::B-trees}} keep keys {{c2::sorted}}.', normalizedKey: 'k', evidence,
  });
  expect(toStoredCard({ kind: 'basic', cue: 'What do B-trees keep?', answer: 'sorted keys', evidence }, 'k2')).toMatchObject({ kind: 'basic', cue: 'What do B-trees keep?', clozeText: null });
});
