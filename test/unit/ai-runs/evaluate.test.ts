/** AR-2/AR-3/AR-9: raw answer → validated, guarded candidates and the outcome, or the attempt's validation error. */
import { evaluateRuntimeAnswer } from '../../../src/domain/ai-runs/evaluate';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { REFERENCE_TIME, request } from './fixtures';

describe('evaluateRuntimeAnswer', () => {
  it('the issue example: one clean candidate, REVIEW_REQUIRED', () => {
    const text = 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678';
    const req = request(text);
    const e = evaluateRuntimeAnswer(analyzeLocally(req), { text, referenceTime: REFERENCE_TIME, requestId: req.requestId });
    expect(e.ok).toBe(true);
    if (!e.ok) return;
    expect(e.candidates).toEqual([expect.objectContaining({ taskType: 'EMPLOYMENT_CERTIFICATE', findings: [], blocked: false })]);
    expect(e.outcome).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: [] });
  });

  it('a candidate that dropped the amount is blocked and the outcome names the guard', () => {
    const text = 'My November salary was underpaid by ₩350,000';
    const answer = analyzeLocally(request(text));
    const tampered = { ...answer, candidates: answer.candidates.map((c) => ({ ...c, slots: { payPeriod: c.slots.payPeriod }, missingSlots: [] })) };
    const e = evaluateRuntimeAnswer(tampered, { text, referenceTime: REFERENCE_TIME });
    expect(e.ok).toBe(true);
    if (!e.ok) return;
    expect(e.candidates[0]).toMatchObject({ blocked: true, missingSlots: ['amount'], findings: [{ code: 'LOST_KEY_VALUE', kind: 'amount', field: 'amount', occurrences: 1 }] });
    expect(e.outcome).toEqual({ outcome: 'NEEDS_INFO', reasons: ['MISSING_REQUIRED_SLOTS', 'BLOCKED_BY_GUARD'] });
  });

  it('an invalid answer yields the validation error and no candidates', () => {
    const e = evaluateRuntimeAnswer({ contractVersion: 'ai-run/v1' }, { text: 'x', referenceTime: REFERENCE_TIME });
    expect(e).toEqual({ ok: false, code: 'SCHEMA_VIOLATION', issues: expect.arrayContaining([expect.objectContaining({ path: 'candidates' })]) });
    expect('candidates' in e).toBe(false);
  });
});
