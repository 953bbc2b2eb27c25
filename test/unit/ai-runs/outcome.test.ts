/** AR-3: the analysis outcome is NEEDS_INFO for a missing required slot, REVIEW_REQUIRED otherwise; never a failure. */
import { analysisOutcome, missingRequiredSlots } from '../../../src/domain/ai-runs/outcome';

const complete = { taskType: 'EMPLOYMENT_CERTIFICATE', slots: { purpose: 'VISA', dueDate: '2026-12-04' }, confidence: 0.8 };
const noDate = { taskType: 'EMPLOYMENT_CERTIFICATE', slots: { purpose: 'VISA' }, confidence: 0.8 };
const clear = { ambiguous: false, reasons: [] };

describe('analysisOutcome', () => {
  it('REVIEW_REQUIRED for one complete, confident candidate', () => {
    expect(analysisOutcome({ candidates: [complete], ambiguity: clear })).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: [] });
  });
  it('NEEDS_INFO when a required slot is missing (optional slots do not count)', () => {
    expect(analysisOutcome({ candidates: [noDate], ambiguity: clear })).toEqual({ outcome: 'NEEDS_INFO', reasons: ['MISSING_REQUIRED_SLOTS'] });
    expect(missingRequiredSlots(noDate)).toEqual(['dueDate']);
    expect(missingRequiredSlots(complete)).toEqual([]); // copies and language are optional
  });
  it('NEEDS_INFO wins over ambiguity and low confidence', () => {
    const d = analysisOutcome({ candidates: [{ ...noDate, confidence: 0.2 }, complete], ambiguity: { ambiguous: true, reasons: ['MULTIPLE_MATCHES'] } });
    expect(d).toEqual({ outcome: 'NEEDS_INFO', reasons: ['MISSING_REQUIRED_SLOTS', 'AMBIGUOUS', 'LOW_CONFIDENCE'] });
  });
  it('ambiguity, low confidence, no candidate and a blocked candidate are REVIEW_REQUIRED', () => {
    expect(analysisOutcome({ candidates: [complete], ambiguity: { ambiguous: true, reasons: ['UNCLEAR_SLOT'] } }).outcome).toBe('REVIEW_REQUIRED');
    expect(analysisOutcome({ candidates: [{ ...complete, confidence: 0.3 }], ambiguity: clear })).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: ['LOW_CONFIDENCE'] });
    expect(analysisOutcome({ candidates: [], ambiguity: { ambiguous: true, reasons: ['NO_MATCH'] } })).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: ['AMBIGUOUS', 'NO_CANDIDATE'] });
    expect(analysisOutcome({ candidates: [{ ...complete, blocked: true }], ambiguity: clear })).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: ['BLOCKED_BY_GUARD'] });
  });
});
