/**
 * PO-11/PO-12 reading a user's academic data: graduation progress (the student record, the
 * student's own course credits from student_courses and the applicable rules) and the
 * course-evaluation status of the target semester. Throws DomainError with the codes of
 * src/domain/portal/academic-problem-codes.ts; never answers an empty success for missing data.
 */
import type { PrismaClient } from '@prisma/client';
import { evaluateGraduation, selectRule, type GraduationProgress } from '../../domain/portal/graduation';
import type { EvaluationStatus, Term } from '../../domain/portal/result';
import { loadGraduationRules } from './graduation-rules';
import { PO_ERRORS } from '../../domain/portal/errors';

/** The student a read is about: the user's student at `portalType`, or their only one when omitted. */
async function findStudent(db: PrismaClient, userId: string, portalType: string | undefined) {
  const students = await db.student.findMany({ where: { userId, ...(portalType ? { portalType } : {}) }, orderBy: { portalType: 'asc' }, take: 2 });
  if (students.length === 0) {
    throw PO_ERRORS.problem('PORTAL_STUDENT_NOT_FOUND', portalType ? `no student data from portal ${portalType}: link the portal first` : 'no student data: link a portal first');
  }
  if (students.length > 1) throw PO_ERRORS.problem('PORTAL_TYPE_REQUIRED', 'student data from several portals: name one with portalType');
  return students[0]!;
}

/** Who the progress is about (the profile fields the rules were chosen by). */
export interface ProgressStudent {
  portalType: string;
  studentId: string;
  name: string;
  admissionYear: number;
  department: string;
  major: string;
  doubleMajor: string | null;
  dataAsOf: string;
}

/**
 * PO-11 the graduation progress of the user's student.
 * @throws DomainError PORTAL_STUDENT_NOT_FOUND (404), PORTAL_TYPE_REQUIRED (400), ACADEMIC_RECORD_NOT_FOUND (422),
 *   GRADUATION_RULES_NOT_FOUND (422: no rule for the major, or none for the double major).
 */
export async function graduationProgress(db: PrismaClient, userId: string, portalType?: string): Promise<{ student: ProgressStudent; progress: GraduationProgress }> {
  const s = await findStudent(db, userId, portalType);
  const record = await db.academicRecord.findUnique({ where: { studentId: s.id } });
  if (!record) throw PO_ERRORS.problem('ACADEMIC_RECORD_NOT_FOUND', 'the student has no academic record: refresh the portal link');
  const rules = await loadGraduationRules(db, s.portalType);
  const target = { portalType: s.portalType, admissionYear: s.admissionYear, department: s.department };
  const primary = selectRule(rules, 'PRIMARY', { ...target, major: s.major });
  const noRules = (what: string) =>
    PO_ERRORS.problem('GRADUATION_RULES_NOT_FOUND', `no graduation rule of ${s.portalType} applies to ${what}`);
  if (!primary) throw noRules(`admission year ${s.admissionYear}, department ${s.department}, major ${s.major}`);
  const doubleMajor = s.doubleMajor === null ? null : selectRule(rules, 'DOUBLE_MAJOR', { ...target, major: s.doubleMajor });
  if (s.doubleMajor !== null && !doubleMajor) throw noRules(`admission year ${s.admissionYear}, double major ${s.doubleMajor}`);

  const rows = await db.studentCourse.findMany({
    where: { studentId: s.id },
    include: { course: { select: { code: true, name: true } }, semester: { select: { year: true, term: true } } },
    orderBy: [{ semester: { year: 'asc' } }, { position: 'asc' }],
  });
  const certs = await db.languageCertificate.findMany({ where: { studentId: s.id }, orderBy: { position: 'asc' } });
  const progress = evaluateGraduation({
    attempts: rows.map((r) => ({
      courseCode: r.course.code,
      courseName: r.course.name,
      credits: r.credits,
      creditCorrection: r.creditCorrection,
      grade: r.grade,
      area: r.area,
      retake: r.retake,
      year: r.semester.year,
      term: r.semester.term as Term,
    })),
    certificates: certs.map((c) => ({ kind: c.kind, score: c.score, level: c.level, acquiredOn: c.acquiredOn.toISOString().slice(0, 10) })),
    primary,
    doubleMajor,
  });
  return {
    student: {
      portalType: s.portalType,
      studentId: s.studentNumber,
      name: s.name,
      admissionYear: s.admissionYear,
      department: s.department,
      major: s.major,
      doubleMajor: s.doubleMajor,
      dataAsOf: s.dataAsOf.toISOString(),
    },
    progress,
  };
}

/** PO-12 one course's evaluation status in the target semester. */
export interface CourseEvaluationView {
  courseCode: string;
  courseName: string | null;
  status: EvaluationStatus;
}

/** PO-12 the target semester's evaluations. */
export interface SemesterEvaluations {
  portalType: string;
  targetSemester: { year: number; term: Term } | null;
  items: CourseEvaluationView[];
  dataAsOf: string;
}

/**
 * PO-12 the evaluation status of every course of the target semester: the portal's items, and
 * NOT_RELEASED for a course the student takes that semester without one. With `semester`, it must
 * be the target semester (else A07).
 * @throws DomainError PORTAL_STUDENT_NOT_FOUND, PORTAL_TYPE_REQUIRED, A07 (422).
 */
export async function courseEvaluations(
  db: PrismaClient,
  userId: string,
  opts: { portalType?: string; semester?: { year: number; term: Term } },
): Promise<SemesterEvaluations> {
  const s = await findStudent(db, userId, opts.portalType);
  const target = s.evaluationYear !== null && s.evaluationTerm !== null ? { year: s.evaluationYear, term: s.evaluationTerm as Term } : null;
  if (opts.semester && (!target || target.year !== opts.semester.year || target.term !== opts.semester.term)) {
    throw PO_ERRORS.problem('A07', target
        ? `${opts.semester.year}-${opts.semester.term} is not the course-evaluation target semester (${target.year}-${target.term})`
        : 'no course evaluations are open at the portal',
    );
  }
  if (!target) return { portalType: s.portalType, targetSemester: null, items: [], dataAsOf: s.dataAsOf.toISOString() };
  const [evals, taken] = await Promise.all([
    db.courseEvaluation.findMany({ where: { studentId: s.id, year: target.year, term: target.term } }),
    db.studentCourse.findMany({
      where: { studentId: s.id, semester: { year: target.year, term: target.term } },
      include: { course: { select: { code: true, name: true } } },
      orderBy: { position: 'asc' },
    }),
  ]);
  const names = new Map(taken.map((t) => [t.course.code, t.course.name]));
  const missingNames = evals.map((e) => e.courseCode).filter((c) => !names.has(c));
  if (missingNames.length > 0) {
    for (const c of await db.course.findMany({ where: { portalType: s.portalType, code: { in: missingNames } }, select: { code: true, name: true } })) names.set(c.code, c.name);
  }
  const status = new Map(evals.map((e) => [e.courseCode, e.status]));
  const codes = [...new Set([...taken.map((t) => t.course.code), ...evals.map((e) => e.courseCode).sort()])];
  return {
    portalType: s.portalType,
    targetSemester: target,
    items: codes.map((code) => ({ courseCode: code, courseName: names.get(code) ?? null, status: status.get(code) ?? 'NOT_RELEASED' })),
    dataAsOf: s.dataAsOf.toISOString(),
  };
}

/**
 * PO-12 one course's evaluation status in `semester`.
 * @throws DomainError PORTAL_STUDENT_NOT_FOUND, PORTAL_TYPE_REQUIRED, A07 (not the target semester), A08 (422: not a course of it).
 */
export async function courseEvaluation(
  db: PrismaClient,
  userId: string,
  opts: { portalType?: string; semester: { year: number; term: Term }; courseCode: string },
): Promise<CourseEvaluationView & { portalType: string; targetSemester: { year: number; term: Term } }> {
  const all = await courseEvaluations(db, userId, opts);
  const item = all.items.find((i) => i.courseCode === opts.courseCode);
  if (!item) {
    throw PO_ERRORS.problem('A08', `course ${opts.courseCode} is not a course of ${opts.semester.year}-${opts.semester.term}`);
  }
  return { ...item, portalType: all.portalType, targetSemester: all.targetSemester! };
}
