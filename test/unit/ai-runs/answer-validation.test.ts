/**
 * AR-6/AR-9 re-validation keeps what it stores masked: the guards see the raw candidate (and block
 * it), the stored title, slots and findings carry the masked value only.
 */
import { validateRuntimeAnswer } from '../../../src/services/ai-runs/answer-validation';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { WORKFLOW_CATALOG_VERSION } from '../../../src/domain/ai-runs/catalog';

const referenceTime = '2026-11-30T09:00:00+09:00';

test('an address with a phone number inside: the candidate is blocked SENSITIVE_DATA PHONE and stores the masked address', () => {
  const text = 'I moved, my new address is 12 Teheran-ro 010-9876-5432 Gangnam-gu, Seoul';
  const answer = analyzeLocally({ requestId: 'r-1', text, workflowCatalogVersion: WORKFLOW_CATALOG_VERSION, referenceTime });
  expect(answer.candidates[0]?.slots.newAddress).toContain('010-9876-5432'); // what the runtime derived
  const checked = validateRuntimeAnswer(answer, { text, referenceTime, requestId: 'r-1' });
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  const candidate = checked.candidates.find((c) => c.taskType === 'ADDRESS_CHANGE')!;
  expect(candidate.blocked).toBe(true);
  expect(candidate.validationErrors).toContainEqual(expect.objectContaining({ code: 'SENSITIVE_DATA', path: 'slots.newAddress', message: expect.stringContaining('PHONE') }));
  expect(candidate.slots.newAddress).toBe('12 Teheran-ro 010-****-**** Gangnam-gu, Seoul');
  expect(JSON.stringify(checked)).not.toContain('9876-5432');
});

test('a candidate without sensitive data is stored as the runtime gave it', () => {
  const text = 'I moved, my new address is 12 Teheran-ro, Gangnam-gu, Seoul';
  const answer = analyzeLocally({ requestId: 'r-2', text, workflowCatalogVersion: WORKFLOW_CATALOG_VERSION, referenceTime });
  const checked = validateRuntimeAnswer(answer, { text, referenceTime, requestId: 'r-2' });
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  expect(checked.candidates.map((c) => ({ title: c.title, slots: c.slots }))).toEqual(answer.candidates.map((c) => ({ title: c.title, slots: c.slots })));
});
