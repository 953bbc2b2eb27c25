/** ST-1/ST-4/DC-3: every transition of the study_memo_card_jobs state machine, in its stored lower-case values. */
import { STUDY_MEMO_CARD_JOB_STATES, STUDY_MEMO_CARD_JOB_STATUSES, type StudyMemoCardJobStatus } from '../../../src/domain/study/job-state';

const ALLOWED: readonly [StudyMemoCardJobStatus, StudyMemoCardJobStatus][] = [
  ['pending', 'processing'],
  ['pending', 'skipped'],
  ['pending', 'failed'],
  ['processing', 'processing'],
  ['processing', 'completed'],
  ['processing', 'failed'],
  ['processing', 'skipped'],
];

const pairs = STUDY_MEMO_CARD_JOB_STATUSES.flatMap((from) => STUDY_MEMO_CARD_JOB_STATUSES.map((to) => [from, to] as [StudyMemoCardJobStatus, StudyMemoCardJobStatus]));

test('the statuses are the stored five, lower case', () => {
  expect([...STUDY_MEMO_CARD_JOB_STATUSES].sort()).toEqual(['completed', 'failed', 'pending', 'processing', 'skipped']);
});

test.each(pairs)('%s → %s', (from, to) => {
  expect(STUDY_MEMO_CARD_JOB_STATES.canTransition(from, to)).toBe(ALLOWED.some(([x, y]) => x === from && y === to));
});

test('the guards of the updates are the allowed sources', () => {
  expect(STUDY_MEMO_CARD_JOB_STATES.sourcesOf('processing')).toEqual(['pending', 'processing']);
  expect(STUDY_MEMO_CARD_JOB_STATES.sourcesOf('completed')).toEqual(['processing']);
  expect(STUDY_MEMO_CARD_JOB_STATES.sourcesOf('skipped')).toEqual(['pending', 'processing']);
  expect(STUDY_MEMO_CARD_JOB_STATES.sourcesOf('failed')).toEqual(['pending', 'processing']);
  expect(STUDY_MEMO_CARD_JOB_STATES.sourcesOf('pending')).toEqual([]);
});

test('active states are the ST-2 index\'s; completed, failed and skipped are final', () => {
  expect(STUDY_MEMO_CARD_JOB_STATES.active).toEqual(['pending', 'processing']);
  expect(STUDY_MEMO_CARD_JOB_STATES.terminal).toEqual(['completed', 'failed', 'skipped']);
});
