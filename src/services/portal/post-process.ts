/**
 * PO-6, PO-8 … PO-10 post-processing of a scrape result, read and validated by
 * src/services/portal/scrape-result.ts (C16, C17): apply it to the academic tables in ONE
 * transaction under the per-student lock (C18 when the database rejects it: nothing is written).
 * Services throw {@link PostProcessError} (or the database's own error for outages and transient
 * errors); the activity maps them to Temporal failures.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import { classifyDbError } from '../../db/errors';
import { storableText } from '../../core/cause-chain';
import { msBeyondClock, trustedUntil } from '../../core/clock';
import { earnedCredits, type CourseAttempt } from '../../domain/portal/graduation';
import { PostProcessError } from './scrape-result';
import type { ScrapeResult } from '../../domain/portal/result';
import type { ApplyScrapeResultInput, ApplyScrapeResultOutput, PortalStudentSummary } from '../../domain/portal/contracts';

/** PO-9 advisory-lock key of a student's data: every writer of one student's rows takes it first. */
export function studentLockKey(userId: string, portalType: string): string {
  return `po-student:${portalType}:${userId}`;
}

type Tx = Prisma.TransactionClient;

/** Takes the transaction-scoped per-student lock (released at commit or rollback). */
export async function lockStudent(tx: Tx, userId: string, portalType: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${studentLockKey(userId, portalType)}, 0))) AS l`;
}

const byKey = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * PO-8 reference data (departments, professors, courses) as upserts that are safe under concurrent
 * jobs of students sharing them: INSERT … ON CONFLICT DO NOTHING (createMany skipDuplicates) in
 * key order (so two transactions lock in the same order and cannot deadlock), then the ids read
 * back; a course whose catalogue entry changed is updated in the same order.
 */
async function upsertReferenceData(tx: Tx, portalType: string, result: ScrapeResult) {
  const taken = result.semesters.flatMap((s) => s.courses);
  const designated = result.designatedCourses ?? [];
  const deptNames = [...new Set([result.profile.department, ...taken.map((c) => c.department), ...designated.map((c) => c.department)].filter((d): d is string => d !== null))].sort();
  if (deptNames.length > 0) {
    await tx.department.createMany({ data: deptNames.map((name) => ({ portalType, name })), skipDuplicates: true });
  }
  const depts = new Map(
    (await tx.department.findMany({ where: { portalType, name: { in: deptNames } }, select: { id: true, name: true } })).map((d) => [d.name, d.id]),
  );
  const deptId = (name: string | null) => (name === null ? null : (depts.get(name) ?? null));

  const profs = new Map<string, string | null>();
  for (const c of taken) if (c.professor !== null && !profs.has(c.professor)) profs.set(c.professor, deptId(c.department));
  const profNames = [...profs.keys()].sort();
  if (profNames.length > 0) {
    await tx.professor.createMany({ data: profNames.map((name) => ({ portalType, name, departmentId: profs.get(name) ?? null })), skipDuplicates: true });
  }
  const profIds = new Map(
    (await tx.professor.findMany({ where: { portalType, name: { in: profNames } }, select: { id: true, name: true } })).map((p) => [p.name, p.id]),
  );

  // A course's catalogue entry: the first occurrence in the result (taken courses before designated ones).
  const catalogue = new Map<string, { code: string; name: string; credits: number; area: ScrapeResult['semesters'][number]['courses'][number]['area']; departmentId: string | null }>();
  for (const c of [...taken, ...designated]) {
    if (!catalogue.has(c.courseCode)) catalogue.set(c.courseCode, { code: c.courseCode, name: c.courseName, credits: c.credits, area: c.area, departmentId: deptId(c.department) });
  }
  const entries = [...catalogue.values()].sort(byKey((c) => c.code));
  if (entries.length > 0) await tx.course.createMany({ data: entries.map((c) => ({ portalType, ...c })), skipDuplicates: true });
  const stored = await tx.course.findMany({ where: { portalType, code: { in: entries.map((c) => c.code) } } });
  const courseIds = new Map(stored.map((c) => [c.code, c.id]));
  const current = new Map(stored.map((c) => [c.code, c]));
  for (const e of entries) {
    const s = current.get(e.code)!;
    if (s.name !== e.name || s.credits !== e.credits || s.area !== e.area || (e.departmentId !== null && s.departmentId !== e.departmentId)) {
      await tx.course.update({ where: { id: s.id }, data: { name: e.name, credits: e.credits, area: e.area, ...(e.departmentId !== null ? { departmentId: e.departmentId } : {}) } });
    }
  }
  return { courseIds, profIds };
}

/** Why a result was not applied (PO-9). */
export type IgnoredReason =
  /** Scraped before its own job was created, while the student already has data. */
  | 'older-than-job'
  /** Scraped before the job that produced the student's current data was created, or before that data itself. */
  | 'older-than-snapshot';

type StudentRow = NonNullable<Awaited<ReturnType<Tx['student']['findUnique']>>>;

/**
 * PO-9 the staleness verdict after the lock: null = apply. With no stored data a result is always
 * applied (nothing newer to protect). A stored `dataAsOf` after `trusted` (the server clock plus
 * the allowed skew) is no real time of the past, so it bounds nothing: only the stored job's
 * creation (the server's own clock) does.
 */
export function staleness(
  stored: Pick<StudentRow, 'dataAsOf' | 'sourceJobCreatedAt'> | null,
  scrapedAt: Date,
  jobCreatedAt: Date,
  trusted?: Date,
): IgnoredReason | null {
  if (!stored) return null;
  if (scrapedAt < jobCreatedAt) return 'older-than-job';
  const asOfTrusted = trusted === undefined || stored.dataAsOf <= trusted;
  if (scrapedAt < stored.sourceJobCreatedAt || (asOfTrusted && scrapedAt < stored.dataAsOf)) return 'older-than-snapshot';
  return null;
}

async function summaryOf(tx: Tx, studentId: string): Promise<{ summary: PortalStudentSummary; semesters: number; courses: number; designatedCoursesVersion: number }> {
  const s = await tx.student.findUniqueOrThrow({
    where: { id: studentId },
    include: { academicRecord: true, _count: { select: { semesters: true, courses: true, designatedCourses: true } } },
  });
  return {
    summary: {
      studentId: s.studentNumber,
      name: s.name,
      admissionYear: s.admissionYear,
      department: s.department,
      major: s.major,
      doubleMajor: s.doubleMajor,
      enrollmentStatus: s.enrollmentStatus,
      gradeLevel: s.gradeLevel,
      creditsEarned: s.creditsEarned,
      gpa: s.academicRecord?.gpa ?? null,
      semesters: s._count.semesters,
      courses: s._count.courses,
      designatedCourses: s._count.designatedCourses,
      dataAsOf: s.dataAsOf.toISOString(),
    },
    semesters: s._count.semesters,
    courses: s._count.courses,
    designatedCoursesVersion: s.designatedCoursesVersion,
  };
}

/** The server clock that instants from outside are checked against. */
export interface ApplyClock {
  /** Unix ms now (default `Date.now()`). */
  nowMs?: () => number;
  /** The skew allowed (the callback signature's tolerance, PORTAL_CALLBACK_TOLERANCE_SECONDS). */
  toleranceSeconds: number;
}

/** Options of {@link applyScrapeResult}. */
export interface ApplyOptions {
  /** Called inside the transaction after the lock, before any write (tests: hold the lock to force an interleaving). */
  afterLock?: (tx: Tx) => Promise<void>;
  /** Interactive-transaction timeout, ms (default 60 s). */
  timeoutMs?: number;
}

/**
 * PO-8/PO-9 applies `result` of job `input.jobId` in one transaction under the student lock: the
 * student's profile and academic record, semesters with their courses (student_courses), the
 * reference data, language certificates, course evaluations, designated courses (absent/null →
 * kept with their version; [] → deleted, version + 1; non-empty → replaced in order, duplicates
 * kept, version + 1), credits earned (graduation input) and the link's status (`onApplied`). A
 * result older than its job or than the stored snapshot is ignored (`applied: false`, `onIgnored`).
 * Repeating an applied job's result changes nothing and answers like the first (an activity retry).
 * With `clock`, a result scraped ahead of the server clock beyond its tolerance is refused before
 * anything is read or written.
 * @throws PostProcessError PORTAL_RESULT_SCRAPED_IN_FUTURE (C17) for such a result,
 *   PORTAL_RESULT_APPLY_FAILED (C18) when the database rejects it
 *   deterministically; database outages and transient errors are rethrown as they are (retried).
 */
export async function applyScrapeResult(
  db: PrismaClient,
  input: Pick<ApplyScrapeResultInput, 'jobId' | 'userId' | 'portalType' | 'jobCreatedAt'>,
  result: ScrapeResult,
  opts: ApplyOptions & {
    /** Checks `scrapedAt` against the server clock (see above); without it the result's time is taken as it is. */
    clock?: ApplyClock;
    onApplied?: (tx: Tx, student: { id: string; studentNumber: string }, at: Date) => Promise<void>;
    /** Called in the transaction when the result is ignored (PO-9). */
    onIgnored?: (tx: Tx, reason: IgnoredReason) => Promise<void>;
    /** Called in the transaction with its answer, last before the commit (the job's own move); what it throws rolls everything back and is rethrown. */
    beforeCommit?: (tx: Tx, out: ApplyScrapeResultOutput) => Promise<void>;
  } = {},
): Promise<ApplyScrapeResultOutput> {
  const scrapedAt = new Date(result.scrapedAt);
  const jobCreatedAt = new Date(input.jobCreatedAt);
  let trusted: Date | undefined;
  if (opts.clock) {
    const nowMs = (opts.clock.nowMs ?? Date.now)();
    const { toleranceSeconds } = opts.clock;
    if (msBeyondClock(scrapedAt, nowMs, toleranceSeconds) > 0) {
      const message = `scraped_at ${result.scrapedAt} is ahead of the server clock (${new Date(nowMs).toISOString()}) by more than the ${toleranceSeconds} s tolerance`;
      throw new PostProcessError('PORTAL_RESULT_SCRAPED_IN_FUTURE', `result ${message}`, { code: 'C17', issues: [{ path: 'scraped_at', message }] });
    }
    trusted = trustedUntil(nowMs, toleranceSeconds);
  }
  try {
    return await db.$transaction(
      async (tx) => {
        await lockStudent(tx, input.userId, input.portalType);
        await opts.afterLock?.(tx);
        const stored = await tx.student.findUnique({ where: { userId_portalType: { userId: input.userId, portalType: input.portalType } } });
        const answer = async (out: ApplyScrapeResultOutput) => {
          await opts.beforeCommit?.(tx, out);
          return out;
        };
        if (stored && stored.sourceJobId === input.jobId && stored.dataAsOf.getTime() === scrapedAt.getTime()) {
          return answer({ ...(await summaryOf(tx, stored.id)), applied: true, ignoredReason: null }); // this job's result, already applied
        }
        const ignored = staleness(stored, scrapedAt, jobCreatedAt, trusted);
        if (ignored) {
          await opts.onIgnored?.(tx, ignored);
          return answer({ ...(await summaryOf(tx, stored!.id)), applied: false, ignoredReason: ignored });
        }

        const { courseIds, profIds } = await upsertReferenceData(tx, input.portalType, result);
        const p = result.profile;
        const attempts: CourseAttempt[] = result.semesters.flatMap((s) => s.courses.map((c) => ({ ...c, year: s.year, term: s.term })));
        const designated = result.designatedCourses; // undefined | null: keep (PO-9)
        const described = {
          name: p.name,
          admissionYear: p.admissionYear,
          department: p.department,
          major: p.major,
          doubleMajor: p.doubleMajor,
          enrollmentStatus: p.enrollmentStatus,
          gradeLevel: p.gradeLevel,
        };
        const profile = {
          studentNumber: p.studentId,
          ...described,
          creditsEarned: earnedCredits(attempts),
          dataAsOf: scrapedAt,
          sourceJobId: input.jobId,
          sourceJobCreatedAt: jobCreatedAt,
          evaluationYear: result.courseEvaluations?.targetSemester.year ?? null,
          evaluationTerm: result.courseEvaluations?.targetSemester.term ?? null,
        };
        let studentId: string;
        if (!stored) {
          studentId = (
            await tx.student.create({
              data: { userId: input.userId, portalType: input.portalType, ...profile, snapshotVersion: 1, designatedCoursesVersion: designated ? 1 : 0 },
              select: { id: true },
            })
          ).id;
        } else {
          studentId = stored.id;
          // Snapshot-version comparison: the row must still be the version read under the lock.
          const moved = await tx.student.updateMany({
            where: { id: stored.id, snapshotVersion: stored.snapshotVersion },
            data: { ...profile, snapshotVersion: { increment: 1 }, ...(designated ? { designatedCoursesVersion: { increment: 1 } } : {}) },
          });
          if (moved.count !== 1) throw new Error(`student ${stored.id} changed under its lock (snapshot ${stored.snapshotVersion})`);
        }

        const record = { creditsAttempted: result.academicRecord.creditsAttempted, creditsEarned: result.academicRecord.creditsEarned, gpa: result.academicRecord.gpa };
        await tx.academicRecord.upsert({ where: { studentId }, create: { studentId, ...record }, update: record });

        // The result is the whole record, so the student's rows are replaced: a stored student's
        // semesters (their courses cascade), certificates, evaluations and — when the result has a
        // list — designated courses go in one statement (a new student has none).
        if (stored) {
          await tx.$executeRaw`
            WITH sem AS (DELETE FROM student_semesters WHERE student_id = ${studentId}::uuid),
                 cert AS (DELETE FROM language_certificates WHERE student_id = ${studentId}::uuid),
                 ev AS (DELETE FROM course_evaluations WHERE student_id = ${studentId}::uuid)
            DELETE FROM designated_courses WHERE ${designated != null}::boolean AND student_id = ${studentId}::uuid`;
        }
        // Semesters and their courses: one statement for the semesters, one for all their courses.
        if (result.semesters.length > 0) {
          const semKey = (s: { year: number; term: string }) => `${s.year}:${s.term}`;
          const sems = await tx.studentSemester.createManyAndReturn({
            data: result.semesters.map((s) => ({ studentId, year: s.year, term: s.term, gpa: s.gpa })),
            select: { id: true, year: true, term: true },
          });
          const semesterIds = new Map(sems.map((s) => [semKey(s), s.id]));
          const taken = result.semesters.flatMap((s) =>
            s.courses.map((c, position) => ({
              studentId,
              semesterId: semesterIds.get(semKey(s))!,
              courseId: courseIds.get(c.courseCode)!,
              position,
              credits: c.credits,
              creditCorrection: c.creditCorrection,
              grade: c.grade,
              area: c.area,
              retake: c.retake,
              professorId: c.professor === null ? null : (profIds.get(c.professor) ?? null),
            })),
          );
          if (taken.length > 0) await tx.studentCourse.createMany({ data: taken });
        }

        if (p.languageCertificates.length > 0) {
          await tx.languageCertificate.createMany({
            data: p.languageCertificates.map((c, position) => ({ studentId, position, kind: c.kind, score: c.score, level: c.level, acquiredOn: new Date(`${c.acquiredOn}T00:00:00Z`) })),
          });
        }

        const ev = result.courseEvaluations;
        if (ev && ev.items.length > 0) {
          await tx.courseEvaluation.createMany({
            data: ev.items.map((i) => ({ studentId, year: ev.targetSemester.year, term: ev.targetSemester.term, courseCode: i.courseCode, status: i.status })),
            skipDuplicates: true, // a course listed twice keeps its first status
          });
        }

        if (designated && designated.length > 0) {
          await tx.designatedCourse.createMany({
            data: designated.map((c, position) => ({
              studentId,
              position,
              courseId: courseIds.get(c.courseCode)!,
              courseCode: c.courseCode,
              courseName: c.courseName,
              credits: c.credits,
              area: c.area,
              department: c.department,
            })),
          });
        }

        await opts.onApplied?.(tx, { id: studentId, studentNumber: p.studentId }, new Date());
        // The summary of what was just written (summaryOf's values without reading them back); a
        // kept designated list is counted.
        const designatedCourses = designated ? designated.length : stored ? await tx.designatedCourse.count({ where: { studentId } }) : 0;
        const courses = attempts.length;
        const summary: PortalStudentSummary = {
          studentId: p.studentId,
          ...described,
          creditsEarned: profile.creditsEarned,
          gpa: record.gpa,
          semesters: result.semesters.length,
          courses,
          designatedCourses,
          dataAsOf: scrapedAt.toISOString(),
        };
        const designatedCoursesVersion = (stored?.designatedCoursesVersion ?? 0) + (designated ? 1 : 0);
        return answer({ summary, semesters: summary.semesters, courses, designatedCoursesVersion, applied: true, ignoredReason: null });
      },
      { timeout: opts.timeoutMs ?? 60_000, maxWait: 10_000, isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
    );
  } catch (err) {
    if (classifyDbError(err)?.class === 'deterministic') {
      throw new PostProcessError('PORTAL_RESULT_APPLY_FAILED', `database rejected the result: ${storableText(classifyDbError(err)!.message, 1000)}`, undefined, { cause: err });
    }
    throw err;
  }
}
