/**
 * PO-5 the `suwon` portal's Korean labels and the result's enums they stand for: course areas
 * (이수구분), terms, grades, evaluation statuses, enrollment statuses. The adapter reads them, the
 * portal emulator writes them; a label not listed here is unexpected markup. Pure data.
 */
import type { CourseArea, EvaluationStatus, Term } from '../../../../domain/portal/result';

/** 이수구분 label of each course area. */
export const AREA_LABELS: Readonly<Record<CourseArea, string>> = {
  GE_REQUIRED: '교양필수',
  GE_CORE: '교양핵심',
  GE_ELECTIVE: '교양선택',
  MAJOR_REQUIRED: '전공필수',
  MAJOR_ELECTIVE: '전공선택',
  DOUBLE_MAJOR_REQUIRED: '복수전공필수',
  DOUBLE_MAJOR_ELECTIVE: '복수전공선택',
  FREE_ELECTIVE: '일반선택',
};

/** Label of each term. */
export const TERM_LABELS: Readonly<Record<Term, string>> = { '1': '1학기', '2': '2학기', SUMMER: '여름계절', WINTER: '겨울계절' };

/** 강의평가 status label of each PO-12 status. */
export const EVALUATION_LABELS: Readonly<Record<EvaluationStatus, string>> = {
  PENDING: '미평가',
  SKIPPED: '평가제외',
  COMPLETED: '평가완료',
  NOT_RELEASED: '미공개',
};

/** Inverts a label table (label → enum value). */
export function invert<K extends string>(table: Readonly<Record<K, string>>): ReadonlyMap<string, K> {
  return new Map(Object.entries(table).map(([k, v]) => [v as string, k as K]));
}

/** Text of a grade not yet given (shown as "-"). */
export const NO_GRADE_LABEL = '-';
/** Text of "no" / "yes" in Y/N columns (재수강). */
export const YES_LABEL = 'Y';
export const NO_LABEL = 'N';
/** Text shown instead of a missing value. */
export const NONE_LABEL = '-';
