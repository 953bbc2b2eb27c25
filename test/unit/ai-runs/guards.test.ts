/**
 * AR-9: candidates that drop a key value of the input (a date, amount or count) or carry sensitive
 * data into a field that would be sent are blocked, with findings that name field and kind only.
 */
import { parseRuntimeAnswer, type RuntimeCandidate } from '../../../src/domain/ai-runs/contract';
import { guardCandidate, guardCandidates } from '../../../src/domain/ai-runs/guards';
import { analysisOutcome } from '../../../src/domain/ai-runs/outcome';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { REFERENCE_TIME, request } from './fixtures';

const input = (text: string) => ({ text, referenceTime: REFERENCE_TIME });
const cert = (slots: RuntimeCandidate['slots'], title = 'Employment certificate') => ({ taskType: 'EMPLOYMENT_CERTIFICATE', title, slots });

describe('AR-9 guards', () => {
  const EXAMPLE = 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678';

  it('passes the local runtime’s candidate for the issue example (phone not carried, Friday kept)', () => {
    const answer = parseRuntimeAnswer(analyzeLocally(request(EXAMPLE)));
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(guardCandidates(input(EXAMPLE), answer.answer.candidates)).toEqual([{ findings: [], blocked: false }]);
  });

  it('LOST_KEY_VALUE: "by Friday" dropped', () => {
    const r = guardCandidate(input(EXAMPLE), cert({ purpose: 'VISA' }));
    expect(r).toEqual({ blocked: true, findings: [{ code: 'LOST_KEY_VALUE', kind: 'date', field: 'dueDate', occurrences: 1 }] });
  });

  it('LOST_KEY_VALUE: a changed date counts as lost', () => {
    const r = guardCandidate(input(EXAMPLE), cert({ purpose: 'VISA', dueDate: '2026-12-11' }));
    expect(r.findings).toEqual([{ code: 'LOST_KEY_VALUE', kind: 'date', field: 'dueDate', occurrences: 1 }]);
  });

  it('LOST_KEY_VALUE: "₩350,000" dropped or altered', () => {
    const text = 'My November salary was underpaid by ₩350,000';
    const base = { taskType: 'PAYROLL_CORRECTION', title: 'Payroll correction' };
    const period = { start: '2026-11-01', end: '2026-11-30' };
    expect(guardCandidate(input(text), { ...base, slots: { payPeriod: period } }).findings).toEqual([
      { code: 'LOST_KEY_VALUE', kind: 'amount', field: 'amount', occurrences: 1 },
    ]);
    expect(guardCandidate(input(text), { ...base, slots: { payPeriod: period, amount: { value: 35000, currency: 'KRW' } } }).blocked).toBe(true);
    expect(guardCandidate(input(text), { ...base, slots: { payPeriod: period, amount: { value: 350000, currency: 'KRW' } } }).blocked).toBe(false);
    // The month is a key value too.
    expect(guardCandidate(input(text), { ...base, slots: { amount: { value: 350000, currency: 'KRW' } } }).findings).toEqual([
      { code: 'LOST_KEY_VALUE', kind: 'date', field: 'payPeriod', occurrences: 1 },
    ]);
  });

  it('LOST_KEY_VALUE: a day count is kept by a count slot or by a range of that length', () => {
    const text = '다음 주 월요일부터 3일간 연차 쓰겠습니다';
    const leave = (slots: RuntimeCandidate['slots']) => ({ taskType: 'LEAVE_REQUEST', title: '휴가 신청', slots });
    expect(guardCandidate(input(text), leave({ leaveType: 'ANNUAL', period: { start: '2026-12-07', end: '2026-12-09' } })).blocked).toBe(false);
    expect(guardCandidate(input(text), leave({ leaveType: 'ANNUAL', period: { start: '2026-12-07', end: '2026-12-07' } })).findings).toEqual([
      { code: 'LOST_KEY_VALUE', kind: 'count', field: 'days', occurrences: 1 },
    ]);
  });

  it('LOST_KEY_VALUE names no field when the task type has no slot for the value', () => {
    const r = guardCandidate(input('주소 변경합니다. 새 주소는 서울시 마포구 월드컵로 123 입니다. 이사비 50만원'), {
      taskType: 'ADDRESS_CHANGE',
      title: '주소 변경',
      slots: { newAddress: '서울시 마포구 월드컵로 123' },
    });
    expect(r.findings).toEqual([{ code: 'LOST_KEY_VALUE', kind: 'amount', field: null, occurrences: 1 }]);
  });

  it('digits of sensitive data are not key values (a phone is not an amount or a date)', () => {
    const r = guardCandidate(input('재직증명서 비자용 금요일까지, 연락처 010-1234-5678, 계좌 110-123-456789'), cert({ purpose: 'VISA', dueDate: '2026-12-04' }));
    expect(r).toEqual({ findings: [], blocked: false });
  });

  it.each([
    ['PHONE', 'call me at 010-1234-5678'],
    ['EMAIL', 'kim.minji@example.com'],
    ['RRN', '900101-1234567'],
    ['ACCOUNT_NUMBER', '신한 110-123-456789'],
  ])('SENSITIVE_DATA: %s in a text slot', (kind, value) => {
    const text = `주소 변경합니다. 새 주소는 서울시 마포구 월드컵로 123 입니다 ${value}`;
    const r = guardCandidate(input(text), { taskType: 'ADDRESS_CHANGE', title: '주소 변경', slots: { newAddress: `서울시 마포구 월드컵로 123 ${value}` } });
    expect(r.blocked).toBe(true);
    expect(r.findings).toEqual([{ code: 'SENSITIVE_DATA', kind, field: 'newAddress', occurrences: 1 }]);
    expect(JSON.stringify(r)).not.toContain(value);
  });

  it('SENSITIVE_DATA in the title', () => {
    const r = guardCandidate(input(EXAMPLE), cert({ purpose: 'VISA', dueDate: '2026-12-04' }, 'Certificate for 010-1234-5678'));
    expect(r.findings).toEqual([{ code: 'SENSITIVE_DATA', kind: 'PHONE', field: 'title', occurrences: 1 }]);
  });

  it('a runtime copying a phone into the new address is blocked, and the outcome says so; the local runtime does not copy it', () => {
    const text = '이사했습니다. 새 주소는 서울시 마포구 월드컵로 123, 연락처 010-2222-3333 입니다';
    const parsed = parseRuntimeAnswer(analyzeLocally(request(text)));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const local = parsed.answer.candidates[0];
    expect(local?.slots.newAddress).toEqual(expect.stringContaining('서울시 마포구 월드컵로 123'));
    expect(guardCandidates(input(text), parsed.answer.candidates)).toEqual([{ findings: [], blocked: false }]);

    const leaky = { ...(local as RuntimeCandidate), slots: { newAddress: '서울시 마포구 월드컵로 123, 연락처 010-2222-3333' } };
    const [verdict] = guardCandidates(input(text), [leaky]);
    expect(verdict?.findings).toEqual([{ code: 'SENSITIVE_DATA', kind: 'PHONE', field: 'newAddress', occurrences: 1 }]);
    expect(analysisOutcome({ ...parsed.answer, candidates: [{ ...leaky, blocked: verdict?.blocked }] })).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: ['BLOCKED_BY_GUARD'] });
  });
});
