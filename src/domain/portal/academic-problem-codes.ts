/**
 * Problem codes of the portal-link family's academic routes (PO-11, PO-12): graduation progress
 * and course evaluations. A07/A08 keep the original's codes (specs/portal-link-flow.ko.txt).
 */

/** Every academic problem code, with the status it answers. */
export const PO_ACADEMIC_PROBLEM_CODES = [
  /** 404: the user has no student data for the portal (no successful link yet). */
  'PORTAL_STUDENT_NOT_FOUND',
  /** 400: the user has student data at several portals and the request names none (`portalType`). */
  'PORTAL_TYPE_REQUIRED',
  /** 422: the student has no academic record (the link stored no record to compute from). */
  'ACADEMIC_RECORD_NOT_FOUND',
  /** 422: no graduation rule applies to the student's portal, admission year, department and (double) major. */
  'GRADUATION_RULES_NOT_FOUND',
  /** 422 (PO-12 A07): the semester asked for is not the course-evaluation target semester. */
  'A07',
  /** 422 (PO-12 A08): the course is not one of the target semester's courses. */
  'A08',
] as const;

/** A PO academic problem code. */
export type PoAcademicProblemCode = (typeof PO_ACADEMIC_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<PoAcademicProblemCode, true> {}
}
