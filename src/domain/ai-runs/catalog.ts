/**
 * The HR workflow catalog of the AI runs family (AR-2, AR-3, AR-6): the task types the AI runtime
 * may propose, each with its slots (name, type, required) and the Korean and English cues the
 * offline `local` runtime matches. The catalog carries a version that every runtime answer must name
 * (`versions.workflowCatalog`) and every attempt stores. Pure data, no I/O: safe in workflow code.
 *
 * Slot value shapes (validated by the runtime contract, contract.ts):
 * - `date`: `YYYY-MM-DD` (a calendar date, no time zone);
 * - `date-range`: `{ start: 'YYYY-MM-DD', end: 'YYYY-MM-DD' }` with start ≤ end (inclusive);
 * - `amount`: `{ value: number, currency: 'KRW' | 'USD' }`, value > 0 in major units (KRW whole won,
 *   USD at most two decimals);
 * - `count`: a positive integer in the slot's `unit` (days, hours, copies);
 * - `enum`: one of the slot's `values`;
 * - `text`: a non-blank string of at most 500 characters.
 */

/** Version of this catalog; bump it whenever a task type, slot or slot type changes (AR-6). */
export const WORKFLOW_CATALOG_VERSION = 'hr-catalog/v1';

/** The slot types of the catalog (see the module comment for their value shapes). */
export const SLOT_TYPES = ['date', 'date-range', 'amount', 'text', 'enum', 'count'] as const;
export type SlotType = (typeof SLOT_TYPES)[number];

/** Currencies an `amount` slot accepts (ISO 4217). */
export const CURRENCIES = ['KRW', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Units of a `count` slot. */
export type CountUnit = 'days' | 'hours' | 'copies';

/** Korean and English cue phrases (lower-case English; Korean matched as substrings). */
export interface Cues {
  readonly ko: readonly string[];
  readonly en: readonly string[];
}

/** One allowed value of an `enum` slot with the phrases that select it. */
export interface EnumValueSpec {
  readonly value: string;
  readonly cues: Cues;
}

/** One slot of a task type. `values` only for `enum`, `unit` only for `count`. */
export interface SlotSpec {
  readonly name: string;
  readonly type: SlotType;
  readonly required: boolean;
  readonly description: string;
  readonly values?: readonly EnumValueSpec[];
  readonly unit?: CountUnit;
  /** `date-range` only: `month` when the range is a calendar month (a pay period). */
  readonly granularity?: 'month';
}

/**
 * One task type. `cues` name the task itself (a match is strong evidence); `weakCues` are generic
 * words several task types share ("certificate", "증명서"), worth a third of a cue.
 */
export interface WorkflowSpec {
  readonly taskType: string;
  readonly title: { readonly ko: string; readonly en: string };
  readonly slots: readonly SlotSpec[];
  readonly cues: Cues;
  readonly weakCues: Cues;
}

/** A versioned catalog. */
export interface WorkflowCatalog {
  readonly version: string;
  readonly workflows: readonly WorkflowSpec[];
}

const CERTIFICATE_PURPOSES: readonly EnumValueSpec[] = [
  { value: 'VISA', cues: { ko: ['비자', '사증', '출입국', '대사관'], en: ['visa', 'embassy', 'immigration'] } },
  { value: 'BANK', cues: { ko: ['은행', '대출', '계좌 개설'], en: ['bank', 'loan', 'mortgage'] } },
  { value: 'HOUSING', cues: { ko: ['전세', '월세', '임대', '부동산'], en: ['lease', 'rental', 'landlord', 'apartment'] } },
  { value: 'GOVERNMENT', cues: { ko: ['관공서', '주민센터', '구청', '세무서'], en: ['government office', 'tax office', 'city hall'] } },
  { value: 'SCHOOL', cues: { ko: ['학교', '대학원', '어린이집', '유치원'], en: ['school', 'university', 'kindergarten', 'daycare'] } },
  { value: 'JOB_APPLICATION', cues: { ko: ['이직', '입사 지원', '채용'], en: ['job application', 'new employer', 'applying for a job'] } },
];

const LANGUAGES: readonly EnumValueSpec[] = [
  { value: 'EN', cues: { ko: ['영문', '영어로'], en: ['in english', 'english version'] } },
  { value: 'KO', cues: { ko: ['국문', '한글로'], en: ['in korean', 'korean version'] } },
];

/** The catalog the server validates answers against (AR-2) and the `local` runtime matches (AR-3). */
export const WORKFLOW_CATALOG: WorkflowCatalog = {
  version: WORKFLOW_CATALOG_VERSION,
  workflows: [
    {
      taskType: 'EMPLOYMENT_CERTIFICATE',
      title: { ko: '재직증명서 발급', en: 'Employment certificate' },
      slots: [
        { name: 'purpose', type: 'enum', required: true, description: 'What the certificate is for.', values: CERTIFICATE_PURPOSES },
        { name: 'dueDate', type: 'date', required: true, description: 'When the employee needs it.' },
        { name: 'copies', type: 'count', required: false, unit: 'copies', description: 'Number of copies.' },
        { name: 'language', type: 'enum', required: false, values: LANGUAGES, description: 'Language of the certificate.' },
        { name: 'employeeName', type: 'text', required: false, description: 'The name to print, when the employee gives it.' },
      ],
      cues: {
        ko: ['재직증명서', '재직 증명서', '재직증명', '재직확인서', '재직 확인서'],
        en: ['employment certificate', 'certificate of employment', 'employment verification', 'employment letter', 'proof of employment'],
      },
      weakCues: { ko: ['증명서', '서류 발급'], en: ['certificate', 'letter from hr'] },
    },
    {
      taskType: 'CAREER_CERTIFICATE',
      title: { ko: '경력증명서 발급', en: 'Career (experience) certificate' },
      slots: [
        { name: 'purpose', type: 'enum', required: true, description: 'What the certificate is for.', values: CERTIFICATE_PURPOSES },
        { name: 'dueDate', type: 'date', required: true, description: 'When the employee needs it.' },
        { name: 'copies', type: 'count', required: false, unit: 'copies', description: 'Number of copies.' },
        { name: 'language', type: 'enum', required: false, values: LANGUAGES, description: 'Language of the certificate.' },
        { name: 'employeeName', type: 'text', required: false, description: 'The name to print, when the employee gives it.' },
      ],
      cues: {
        ko: ['경력증명서', '경력 증명서', '경력증명', '경력확인서'],
        en: ['career certificate', 'experience certificate', 'experience letter', 'certificate of experience', 'service certificate'],
      },
      weakCues: { ko: ['증명서', '서류 발급'], en: ['certificate', 'letter from hr'] },
    },
    {
      taskType: 'LEAVE_REQUEST',
      title: { ko: '휴가 신청', en: 'Leave request' },
      slots: [
        {
          name: 'leaveType',
          type: 'enum',
          required: true,
          description: 'Kind of leave.',
          values: [
            { value: 'ANNUAL', cues: { ko: ['연차', '휴가', '반차'], en: ['annual leave', 'vacation', 'holiday', 'pto', 'day off', 'days off'] } },
            { value: 'SICK', cues: { ko: ['병가', '아파서', '병원', '몸살'], en: ['sick', 'ill', 'doctor', 'hospital'] } },
            { value: 'PARENTAL', cues: { ko: ['육아휴직', '출산휴가', '배우자 출산'], en: ['parental leave', 'maternity', 'paternity'] } },
            { value: 'BEREAVEMENT', cues: { ko: ['경조사', '조의', '장례'], en: ['bereavement', 'funeral'] } },
          ],
        },
        { name: 'period', type: 'date-range', required: true, description: 'First and last day of the leave.' },
        { name: 'days', type: 'count', required: false, unit: 'days', description: 'Working days of leave.' },
      ],
      cues: {
        ko: ['휴가 신청', '연차 신청', '연차', '휴가', '병가', '반차', '육아휴직', '출산휴가', '휴직'],
        en: ['leave request', 'annual leave', 'sick leave', 'parental leave', 'take leave', 'vacation', 'day off', 'days off', 'time off', 'pto'],
      },
      weakCues: { ko: ['쉬고', '쉬려'], en: ['leave', 'off work'] },
    },
    {
      taskType: 'PAYROLL_CORRECTION',
      title: { ko: '급여 정정', en: 'Payroll correction' },
      slots: [
        { name: 'payPeriod', type: 'date-range', required: true, granularity: 'month', description: 'The pay period to correct (a calendar month).' },
        { name: 'amount', type: 'amount', required: true, description: 'The amount missing or paid in excess.' },
        { name: 'reason', type: 'text', required: false, description: 'What went wrong, in the employee’s words.' },
      ],
      cues: {
        ko: ['급여 정정', '급여 오류', '급여가 덜', '급여가 적게', '월급이 덜', '월급이 적게', '덜 들어', '적게 들어', '누락된 수당', '수당이 누락', '급여 명세서'],
        en: ['payroll correction', 'payroll error', 'underpaid', 'overpaid', 'paid less', 'missing from my pay', 'missing from my salary', 'wrong salary', 'salary is wrong', 'payslip'],
      },
      weakCues: { ko: ['급여', '월급', '수당'], en: ['salary', 'pay', 'paycheck', 'allowance'] },
    },
    {
      taskType: 'EXPENSE_REIMBURSEMENT',
      title: { ko: '경비 정산', en: 'Expense reimbursement' },
      slots: [
        { name: 'amount', type: 'amount', required: true, description: 'The amount to reimburse.' },
        {
          name: 'category',
          type: 'enum',
          required: true,
          description: 'Kind of expense.',
          values: [
            { value: 'TRAVEL', cues: { ko: ['출장', '택시', '교통비', 'ktx', '항공', '숙박'], en: ['travel', 'taxi', 'train', 'flight', 'hotel', 'business trip'] } },
            { value: 'MEALS', cues: { ko: ['식대', '식사', '회식'], en: ['meal', 'dinner', 'lunch'] } },
            { value: 'EQUIPMENT', cues: { ko: ['장비', '모니터', '키보드', '노트북'], en: ['equipment', 'monitor', 'keyboard', 'laptop'] } },
            { value: 'EDUCATION', cues: { ko: ['교육비', '도서', '강의', '세미나', '컨퍼런스'], en: ['training', 'course', 'book', 'conference', 'seminar'] } },
          ],
        },
        { name: 'expenseDate', type: 'date', required: false, description: 'When the expense was made.' },
      ],
      cues: {
        ko: ['경비 정산', '경비 청구', '비용 청구', '비용 정산', '정산 요청', '정산 부탁', '정산해', '환급', '영수증', '택시비', '교통비', '식대'],
        en: ['expense reimbursement', 'reimburse', 'reimbursement', 'expense claim', 'expense report', 'receipt'],
      },
      weakCues: { ko: ['경비', '비용', '정산'], en: ['expense', 'expenses', 'paid for'] },
    },
    {
      taskType: 'ADDRESS_CHANGE',
      title: { ko: '주소 변경', en: 'Address change' },
      slots: [
        { name: 'newAddress', type: 'text', required: true, description: 'The new home address.' },
        { name: 'effectiveDate', type: 'date', required: false, description: 'Moving day or the day the change applies.' },
      ],
      cues: {
        ko: ['주소 변경', '주소변경', '주소가 바뀌', '주소를 바꾸', '이사', '새 주소', '전입'],
        en: ['address change', 'change my address', 'change of address', 'new address', 'moved to', 'moving to', 'update my address'],
      },
      weakCues: { ko: ['주소'], en: ['address'] },
    },
    {
      taskType: 'OVERTIME_CLAIM',
      title: { ko: '초과근무 신청', en: 'Overtime claim' },
      slots: [
        { name: 'workDate', type: 'date', required: true, description: 'The day of the overtime work.' },
        { name: 'hours', type: 'count', required: true, unit: 'hours', description: 'Overtime hours.' },
      ],
      cues: {
        ko: ['초과근무', '초과 근무', '야근', '연장근무', '연장 근무', '휴일근무', '특근'],
        en: ['overtime', 'worked late', 'extra hours', 'weekend work', 'worked on the weekend'],
      },
      weakCues: { ko: ['근무'], en: ['worked'] },
    },
  ],
};

/** The task type `taskType` of `catalog`, or undefined. */
export function findWorkflow(taskType: string, catalog: WorkflowCatalog = WORKFLOW_CATALOG): WorkflowSpec | undefined {
  return catalog.workflows.find((w) => w.taskType === taskType);
}

/** Names of the required slots of `spec`, in catalog order. */
export function requiredSlots(spec: WorkflowSpec): string[] {
  return spec.slots.filter((s) => s.required).map((s) => s.name);
}
