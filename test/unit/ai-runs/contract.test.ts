/**
 * AR-2/AR-9: the server re-validates every runtime answer: wrong shapes, unknown task types, slots
 * of the wrong catalog type and foreign contract versions are rejected with stable codes and issues
 * that never echo input values; valid answers get their missing required slots normalised.
 */
import { WORKFLOW_CATALOG_VERSION } from '../../../src/domain/ai-runs/catalog';
import { CONTRACT_VERSION, RuntimeRequestSchema, parseRuntimeAnswer } from '../../../src/domain/ai-runs/contract';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { request } from './fixtures';

const SECRET = '010-9876-5432';

function validAnswer(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(analyzeLocally(request('I need an employment certificate for my visa by Friday')))) as Record<string, unknown>;
}

function withCandidate(patch: Record<string, unknown>): Record<string, unknown> {
  const a = validAnswer();
  const [c] = a.candidates as Record<string, unknown>[];
  return { ...a, candidates: [{ ...c, ...patch }] };
}

function expectViolation(raw: unknown, path: string): void {
  const r = parseRuntimeAnswer(raw);
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe('SCHEMA_VIOLATION');
  expect(r.issues.map((i) => i.path)).toContain(path);
  expect(JSON.stringify(r.issues)).not.toContain(SECRET);
}

describe('parseRuntimeAnswer', () => {
  it('accepts a valid answer and keeps its versions', () => {
    const r = parseRuntimeAnswer(validAnswer());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.answer.contractVersion).toBe(CONTRACT_VERSION);
    expect(r.answer.versions.workflowCatalog).toBe(WORKFLOW_CATALOG_VERSION);
    expect(r.answer.candidates[0]).toMatchObject({ taskType: 'EMPLOYMENT_CERTIFICATE', slots: { purpose: 'VISA', dueDate: '2026-12-04' } });
  });

  it.each([
    ['not an object', 'nope', '(root)'],
    ['null', null, '(root)'],
    ['no candidates', { ...validAnswer(), candidates: undefined }, 'candidates'],
    ['an unknown top-level field', { ...validAnswer(), [SECRET]: 1 }, '(root)'],
    ['a missing version', { ...validAnswer(), versions: { ...(validAnswer().versions as object), model: undefined } }, 'versions.model'],
  ])('rejects %s', (_name, raw, path) => expectViolation(raw, path));

  it('rejects an unknown task type', () => expectViolation(withCandidate({ taskType: 'TELEPORT_REQUEST' }), 'candidates.0.taskType'));
  it('rejects a confidence outside 0..1', () => expectViolation(withCandidate({ confidence: 1.2 }), 'candidates.0.confidence'));
  it('rejects a date slot that is not YYYY-MM-DD', () => expectViolation(withCandidate({ slots: { purpose: 'VISA', dueDate: 'next Friday' } }), 'candidates.0.slots.dueDate'));
  it('rejects an impossible date', () => expectViolation(withCandidate({ slots: { dueDate: '2026-02-30' } }), 'candidates.0.slots.dueDate'));
  it('rejects an enum value outside the catalog', () => expectViolation(withCandidate({ slots: { purpose: SECRET } }), 'candidates.0.slots.purpose'));
  it('rejects a count that is not a number', () => expectViolation(withCandidate({ slots: { copies: 'two' } }), 'candidates.0.slots.copies'));
  it('rejects a range whose start is after its end', () => {
    const a = validAnswer();
    const raw = { ...a, candidates: [{ taskType: 'LEAVE_REQUEST', title: 'Leave', slots: { period: { start: '2026-12-09', end: '2026-12-07' } }, missingSlots: [], confidence: 0.7 }] };
    expectViolation(raw, 'candidates.0.slots.period.end');
  });
  it('rejects an amount with an unknown currency or too many decimals', () => {
    const a = validAnswer();
    const cand = (amount: unknown) => ({ ...a, candidates: [{ taskType: 'EXPENSE_REIMBURSEMENT', title: 'x', slots: { amount }, missingSlots: [], confidence: 0.5 }] });
    expectViolation(cand({ value: 10, currency: 'EUR' }), 'candidates.0.slots.amount.currency');
    expectViolation(cand({ value: 10.005, currency: 'USD' }), 'candidates.0.slots.amount.value');
    expectViolation(cand(35000), 'candidates.0.slots.amount');
  });
  it('rejects a slot name the task type does not have, without echoing the name', () => {
    expectViolation(withCandidate({ slots: { purpose: 'VISA', [SECRET]: 'x' } }), 'candidates.0.slots');
  });
  it('rejects a missingSlots entry that is filled or unknown', () => {
    expectViolation(withCandidate({ missingSlots: ['dueDate'] }), 'candidates.0.missingSlots.0');
    expectViolation(withCandidate({ missingSlots: ['colour'] }), 'candidates.0.missingSlots.0');
  });
  it('rejects an answer to another request', () => {
    const r = parseRuntimeAnswer(validAnswer(), { requestId: 'other' });
    expect(!r.ok && r.issues).toEqual([{ path: 'requestId', message: 'does not match the request' }]);
  });

  it('never echoes input values in issues (strings, numbers, keys)', () => {
    const raw = { ...validAnswer(), requestId: 7, candidates: [{ taskType: SECRET, title: SECRET, slots: { [SECRET]: SECRET }, missingSlots: [SECRET], confidence: SECRET }] };
    const r = parseRuntimeAnswer(raw);
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toMatch(/9876|5432/);
  });

  it.each([
    ['contractVersion', { contractVersion: 'ai-run/v2' }, 'contractVersion'],
    ['versions.contract', { versions: { ...(validAnswer().versions as object), contract: 'ai-run/v0' } }, 'versions.contract'],
    ['versions.workflowCatalog', { versions: { ...(validAnswer().versions as object), workflowCatalog: 'hr-catalog/v0' } }, 'versions.workflowCatalog'],
  ])('a foreign %s is CONTRACT_VERSION_MISMATCH', (_name, patch, path) => {
    const r = parseRuntimeAnswer({ ...validAnswer(), ...patch });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('CONTRACT_VERSION_MISMATCH');
    expect(r.issues.map((i) => i.path)).toEqual([path]);
  });

  it('normalises missingSlots: an absent required slot is listed even when the runtime did not list it', () => {
    const r = parseRuntimeAnswer(withCandidate({ slots: { purpose: 'VISA' }, missingSlots: [] }));
    expect(r.ok && r.answer.candidates[0]?.missingSlots).toEqual(['dueDate']);
  });

  it('treats an explicit null slot as absent', () => {
    const r = parseRuntimeAnswer(withCandidate({ slots: { purpose: 'VISA', dueDate: null } }));
    expect(r.ok && r.answer.candidates[0]?.missingSlots).toEqual(['dueDate']);
  });

  it('reports at most 20 issues', () => {
    const a = validAnswer();
    const bad = Array.from({ length: 5 }, () => ({ taskType: 'LEAVE_REQUEST', title: 'x', slots: { period: 1, days: 'x', leaveType: 'NAP' }, missingSlots: ['a', 'b', 'c'], confidence: 0.5 }));
    const r = parseRuntimeAnswer({ ...a, candidates: bad });
    expect(!r.ok && r.issues.length).toBe(20);
  });
});

describe('RuntimeRequestSchema', () => {
  it('accepts a request and rejects unknown fields, empty text and a bad reference time', () => {
    expect(RuntimeRequestSchema.safeParse(request('재직증명서')).success).toBe(true);
    expect(RuntimeRequestSchema.safeParse({ ...request('x'), extra: 1 }).success).toBe(false);
    expect(RuntimeRequestSchema.safeParse({ ...request('x'), text: '' }).success).toBe(false);
    expect(RuntimeRequestSchema.safeParse({ ...request('x'), referenceTime: 'yesterday' }).success).toBe(false);
  });
});
