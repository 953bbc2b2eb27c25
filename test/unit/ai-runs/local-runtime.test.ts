/**
 * AR-2/AR-3: the offline `local` runtime matches realistic Korean and English HR requests against
 * the workflow catalog, fills slots (relative dates resolved against the request's reference time),
 * lists missing required slots and reports ambiguity; every answer passes the server's re-validation.
 */
import { WORKFLOW_CATALOG, requiredSlots } from '../../../src/domain/ai-runs/catalog';
import { CONTRACT_VERSION, parseRuntimeAnswer } from '../../../src/domain/ai-runs/contract';
import { analysisOutcome } from '../../../src/domain/ai-runs/outcome';
import { analyzeLocally } from '../../../src/services/ai-runs/runtime-client/local';
import { request } from './fixtures';

interface Case {
  text: string;
  taskType: string;
  slots: Record<string, unknown>;
  missing: string[];
}

// Reference day: Tuesday 2026-12-01 (Asia/Seoul).
const CASES: Case[] = [
  {
    text: 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678',
    taskType: 'EMPLOYMENT_CERTIFICATE',
    slots: { purpose: 'VISA', dueDate: '2026-12-04' },
    missing: [],
  },
  {
    text: '재직증명서 2부 은행 대출용으로 다음 주 월요일까지 부탁드립니다',
    taskType: 'EMPLOYMENT_CERTIFICATE',
    slots: { purpose: 'BANK', dueDate: '2026-12-07', copies: 2 },
    missing: [],
  },
  {
    text: 'Hi, this is Minji Kim. I need an employment certificate for my visa by Friday',
    taskType: 'EMPLOYMENT_CERTIFICATE',
    slots: { purpose: 'VISA', dueDate: '2026-12-04', employeeName: 'Minji Kim' },
    missing: [],
  },
  {
    text: '안녕하세요 저는 김민지입니다. 재직증명서 은행 제출용으로 내일까지 부탁드려요',
    taskType: 'EMPLOYMENT_CERTIFICATE',
    slots: { purpose: 'BANK', dueDate: '2026-12-02', employeeName: '김민지' },
    missing: [],
  },
  {
    text: '연차 휴가를 다음 주 월요일부터 3일 쓰고 싶습니다',
    taskType: 'LEAVE_REQUEST',
    slots: { leaveType: 'ANNUAL', period: { start: '2026-12-07', end: '2026-12-09' }, days: 3 },
    missing: [],
  },
  {
    text: '다음 주 월요일부터 3일간 연차 쓰겠습니다',
    taskType: 'LEAVE_REQUEST',
    slots: { leaveType: 'ANNUAL', period: { start: '2026-12-07', end: '2026-12-09' }, days: 3 },
    missing: [],
  },
  {
    text: 'I would like to take annual leave from Dec 22 to Dec 24.',
    taskType: 'LEAVE_REQUEST',
    slots: { leaveType: 'ANNUAL', period: { start: '2026-12-22', end: '2026-12-24' } },
    missing: [],
  },
  {
    text: '11월 급여가 15만원 덜 들어왔어요. 확인 부탁드립니다',
    taskType: 'PAYROLL_CORRECTION',
    slots: { payPeriod: { start: '2026-11-01', end: '2026-11-30' }, amount: { value: 150000, currency: 'KRW' } },
    missing: [],
  },
  {
    text: 'My November salary was underpaid by ₩350,000',
    taskType: 'PAYROLL_CORRECTION',
    slots: { payPeriod: { start: '2026-11-01', end: '2026-11-30' }, amount: { value: 350000, currency: 'KRW' } },
    missing: [],
  },
  {
    text: '택시비 35,000원 정산 부탁드립니다 (12월 3일 출장)',
    taskType: 'EXPENSE_REIMBURSEMENT',
    slots: { amount: { value: 35000, currency: 'KRW' }, category: 'TRAVEL', expenseDate: '2026-12-03' },
    missing: [],
  },
  {
    text: 'Please reimburse $120.50 for the team dinner on 11/27',
    taskType: 'EXPENSE_REIMBURSEMENT',
    slots: { amount: { value: 120.5, currency: 'USD' }, category: 'MEALS', expenseDate: '2026-11-27' },
    missing: [],
  },
  {
    text: '주소 변경합니다. 새 주소는 서울시 마포구 월드컵로 123 입니다',
    taskType: 'ADDRESS_CHANGE',
    slots: { newAddress: '서울시 마포구 월드컵로 123' },
    missing: [],
  },
  {
    text: 'I moved to 45 Teheran-ro, Gangnam-gu, Seoul from Dec 1',
    taskType: 'ADDRESS_CHANGE',
    slots: { newAddress: '45 Teheran-ro, Gangnam-gu, Seoul', effectiveDate: '2026-12-01' },
    missing: [],
  },
  {
    text: '다음 주 화요일 오후 반차 쓰겠습니다',
    taskType: 'LEAVE_REQUEST',
    slots: { leaveType: 'ANNUAL', period: { start: '2026-12-08', end: '2026-12-08' }, days: 0.5 },
    missing: [],
  },
  { text: '어제 야근 4시간 했습니다', taskType: 'OVERTIME_CLAIM', slots: { workDate: '2026-11-30', hours: 4 }, missing: [] },
  // Missing slots: no date, no purpose; no period; no amount.
  { text: 'Could HR send me a certificate of employment?', taskType: 'EMPLOYMENT_CERTIFICATE', slots: {}, missing: ['purpose', 'dueDate'] },
  { text: '병가 쓰고 싶습니다', taskType: 'LEAVE_REQUEST', slots: { leaveType: 'SICK' }, missing: ['period'] },
  { text: '지난달 급여가 잘못 나온 것 같아요, 수당이 누락됐어요', taskType: 'PAYROLL_CORRECTION', slots: { payPeriod: { start: '2026-11-01', end: '2026-11-30' } }, missing: ['amount'] },
];

describe('local runtime: catalog matching', () => {
  it.each(CASES)('$text → $taskType', ({ text, taskType, slots, missing }) => {
    const req = request(text);
    const answer = analyzeLocally(req);
    expect(answer.contractVersion).toBe(CONTRACT_VERSION);
    expect(answer.requestId).toBe(req.requestId);
    expect(answer.ambiguity).toEqual({ ambiguous: false, reasons: [] });
    expect(answer.candidates).toHaveLength(1);
    const [c] = answer.candidates;
    expect(c?.taskType).toBe(taskType);
    expect(c?.slots).toEqual(slots);
    expect(c?.missingSlots).toEqual(missing);
    // The server accepts it unchanged.
    const parsed = parseRuntimeAnswer(answer, { requestId: req.requestId });
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(analysisOutcome(parsed.answer).outcome).toBe(missing.length > 0 ? 'NEEDS_INFO' : 'REVIEW_REQUIRED');
  });

  it('titles follow the language of the request', () => {
    expect(analyzeLocally(request('재직증명서 발급 부탁드립니다')).candidates[0]?.title).toBe('재직증명서 발급');
    expect(analyzeLocally(request('Please issue an employment certificate')).candidates[0]?.title).toBe('Employment certificate');
    expect(analyzeLocally(request('Please issue an employment certificate', { locale: 'ko' })).candidates[0]?.title).toBe('재직증명서 발급');
  });

  it('reports ambiguity when two catalog entries fit, each a candidate with a lower confidence', () => {
    const answer = analyzeLocally(request('I need a certificate for my visa appointment'));
    expect(answer.ambiguity.ambiguous).toBe(true);
    expect(answer.ambiguity.reasons).toContain('MULTIPLE_MATCHES');
    expect(answer.candidates.map((c) => c.taskType).sort()).toEqual(['CAREER_CERTIFICATE', 'EMPLOYMENT_CERTIFICATE']);
    for (const c of answer.candidates) {
      expect(c.slots).toEqual({ purpose: 'VISA' });
      expect(c.confidence).toBeLessThan(0.5);
    }
    const parsed = parseRuntimeAnswer(answer);
    expect(parsed.ok && analysisOutcome(parsed.answer).reasons).toEqual(expect.arrayContaining(['AMBIGUOUS', 'LOW_CONFIDENCE']));
  });

  it('an explicit task name wins over a generic word another entry shares (no false ambiguity)', () => {
    const answer = analyzeLocally(request('경력증명서 한 통 이직용으로 금요일까지 필요합니다'));
    expect(answer.ambiguity.ambiguous).toBe(false);
    expect(answer.candidates.map((c) => c.taskType)).toEqual(['CAREER_CERTIFICATE']);
    expect(answer.candidates[0]?.slots).toMatchObject({ purpose: 'JOB_APPLICATION', dueDate: '2026-12-04' });
  });

  it('no catalog entry → no candidate and NO_MATCH (an outcome, not a failure)', () => {
    const answer = analyzeLocally(request('Hello, what is the wifi password?'));
    expect(answer.candidates).toEqual([]);
    expect(answer.ambiguity).toEqual({ ambiguous: true, reasons: ['NO_MATCH'] });
    const parsed = parseRuntimeAnswer(answer);
    expect(parsed.ok && analysisOutcome(parsed.answer)).toEqual({ outcome: 'REVIEW_REQUIRED', reasons: ['AMBIGUOUS', 'NO_CANDIDATE'] });
  });

  it('confidence means something: a complete request scores above the same request without its slots', () => {
    const complete = analyzeLocally(request('재직증명서 비자용으로 금요일까지 부탁드립니다')).candidates[0];
    const partial = analyzeLocally(request('재직증명서 부탁드립니다')).candidates[0];
    expect(complete?.missingSlots).toEqual([]);
    expect(partial?.missingSlots).toEqual(['purpose', 'dueDate']);
    expect(complete?.confidence).toBeGreaterThan(partial?.confidence ?? 1);
    expect(complete?.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('is deterministic: relative dates follow referenceTime, not the clock', () => {
    const text = 'employment certificate for the bank by next Monday';
    const a = analyzeLocally(request(text, { referenceTime: '2026-12-01T03:00:00Z' }));
    const b = analyzeLocally(request(text, { referenceTime: '2026-12-08T03:00:00Z' }));
    expect(a.candidates[0]?.slots.dueDate).toBe('2026-12-07');
    expect(b.candidates[0]?.slots.dueDate).toBe('2026-12-14');
    expect(analyzeLocally(request(text, { requestId: 'same' }))).toEqual(analyzeLocally(request(text, { requestId: 'same' })));
  });

  it('resolves the calendar day in the request time zone', () => {
    // 2026-12-04T16:00Z is Saturday 01:00 in Seoul, still Friday in New York.
    const text = 'leave request for tomorrow';
    const seoul = analyzeLocally(request(text, { referenceTime: '2026-12-04T16:00:00Z' }));
    const ny = analyzeLocally(request(text, { referenceTime: '2026-12-04T16:00:00Z', timeZone: 'America/New_York' }));
    expect(seoul.candidates[0]?.slots.period).toEqual({ start: '2026-12-06', end: '2026-12-06' });
    expect(ny.candidates[0]?.slots.period).toEqual({ start: '2026-12-05', end: '2026-12-05' });
  });

  it('never copies sensitive data it does not need: the phone of the issue example is in no slot', () => {
    const answer = analyzeLocally(request('I need an employment certificate for my visa by Friday, my phone is 010-1234-5678'));
    expect(JSON.stringify(answer)).not.toContain('1234');
  });

  it('every catalog entry has Korean and English cues and at least one required slot', () => {
    expect(WORKFLOW_CATALOG.workflows.length).toBeGreaterThanOrEqual(6);
    for (const w of WORKFLOW_CATALOG.workflows) {
      expect(w.cues.ko.length).toBeGreaterThan(0);
      expect(w.cues.en.length).toBeGreaterThan(0);
      expect(requiredSlots(w).length).toBeGreaterThan(0);
      for (const s of w.slots) {
        expect(s.type === 'enum').toBe((s.values?.length ?? 0) > 0);
        expect(s.name).not.toBe('title'); // guard findings use 'title' for the candidate's title
      }
    }
  });
});
