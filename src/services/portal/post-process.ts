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

/** A reference row's id and its key (a department's or professor's name, a course's code). */
interface KeyedId {
  id: string;
  key: string;
}

/**
 * The ids of `keys` after an `insert` of the missing ones: the statement's own inserts and the rows
 * its snapshot saw. A row that a concurrent transaction committed while the insert waited on it
 * (ON CONFLICT DO NOTHING skips it) is outside that snapshot: those keys are read once more.
 */
async function idsAfterInsert(tx: Tx, keys: string[], insert: Prisma.Sql, reread: (missing: string[]) => Prisma.Sql): Promise<Map<string, string>> {
  const ids = new Map((await tx.$queryRaw<KeyedId[]>(insert)).map((r) => [r.key, r.id]));
  const missing = keys.filter((k) => !ids.has(k));
  if (missing.length > 0) for (const r of await tx.$queryRaw<KeyedId[]>(reread(missing))) ids.set(r.key, r.id);
  return ids;
}

/**
 * PO-8 reference data (departments, professors, courses) as upserts that are safe under concurrent
 * jobs of students sharing them: per table ONE statement inserts the missing rows (INSERT … ON
 * CONFLICT DO NOTHING, in key order, so two transactions lock in the same order and cannot
 * deadlock, and an existing row is not locked) and answers every requested row's id; a course whose
 * catalogue entry changed is then updated in the same order.
 */
async function upsertReferenceData(tx: Tx, portalType: string, result: ScrapeResult) {
  const taken = result.semesters.flatMap((s) => s.courses);
  const designated = result.designatedCourses ?? [];
  const deptNames = [...new Set([result.profile.department, ...taken.map((c) => c.department), ...designated.map((c) => c.department)].filter((d): d is string => d !== null))].sort();
  const depts =
    deptNames.length === 0
      ? new Map<string, string>()
      : await idsAfterInsert(
          tx,
          deptNames,
          Prisma.sql`
            WITH ins AS (
              INSERT INTO departments (id, portal_type, name)
              SELECT gen_random_uuid(), ${portalType}, n FROM unnest(${deptNames}::text[]) AS n ORDER BY n
              ON CONFLICT (portal_type, name) DO NOTHING
              RETURNING id, name)
            SELECT id::text AS id, name AS key FROM ins
            UNION ALL
            SELECT id::text, name FROM departments WHERE portal_type = ${portalType} AND name = ANY(${deptNames}::text[])`,
          (missing) => Prisma.sql`SELECT id::text AS id, name AS key FROM departments WHERE portal_type = ${portalType} AND name = ANY(${missing}::text[])`,
        );
  const deptId = (name: string | null) => (name === null ? null : (depts.get(name) ?? null));

  const profs = new Map<string, string | null>();
  for (const c of taken) if (c.professor !== null && !profs.has(c.professor)) profs.set(c.professor, deptId(c.department));
  const profNames = [...profs.keys()].sort();
  const profIds =
    profNames.length === 0
      ? new Map<string, string>()
      : await idsAfterInsert(
          tx,
          profNames,
          Prisma.sql`
            WITH ins AS (
              INSERT INTO professors (id, portal_type, name, department_id)
              SELECT gen_random_uuid(), ${portalType}, p.name, p.dept FROM unnest(${profNames}::text[], ${profNames.map((n) => profs.get(n) ?? null)}::uuid[]) AS p(name, dept) ORDER BY p.name
              ON CONFLICT (portal_type, name) DO NOTHING
              RETURNING id, name)
            SELECT id::text AS id, name AS key FROM ins
            UNION ALL
            SELECT id::text, name FROM professors WHERE portal_type = ${portalType} AND name = ANY(${profNames}::text[])`,
          (missing) => Prisma.sql`SELECT id::text AS id, name AS key FROM professors WHERE portal_type = ${portalType} AND name = ANY(${missing}::text[])`,
        );

  // A course's catalogue entry: the first occurrence in the result (taken courses before designated ones).
  type Entry = { code: string; name: string; credits: number; area: ScrapeResult['semesters'][number]['courses'][number]['area']; departmentId: string | null };
  const catalogue = new Map<string, Entry>();
  for (const c of [...taken, ...designated]) {
    if (!catalogue.has(c.courseCode)) catalogue.set(c.courseCode, { code: c.courseCode, name: c.courseName, credits: c.credits, area: c.area, departmentId: deptId(c.department) });
  }
  const entries = [...catalogue.values()].sort(byKey((c) => c.code));
  const courseIds = new Map<string, string>();
  if (entries.length === 0) return { courseIds, profIds };
  type CourseRow = { id: string; code: string; name: string; credits: number; area: string; departmentId: string | null; inserted: boolean };
  const codes = entries.map((e) => e.code);
  const columns = Prisma.sql`id::text AS id, code, name, credits, area::text AS area, department_id::text AS "departmentId"`;
  const rows = await tx.$queryRaw<CourseRow[]>`
    WITH ins AS (
      INSERT INTO courses (id, portal_type, code, name, credits, area, department_id)
      SELECT gen_random_uuid(), ${portalType}, e.code, e.name, e.credits, e.area::"CourseArea", e.dept
        FROM unnest(${codes}::text[], ${entries.map((e) => e.name)}::text[], ${entries.map((e) => e.credits)}::float8[], ${entries.map((e) => e.area)}::text[], ${entries.map((e) => e.departmentId)}::uuid[])
             AS e(code, name, credits, area, dept)
       ORDER BY e.code
      ON CONFLICT (portal_type, code) DO NOTHING
      RETURNING *)
    SELECT ${columns}, true AS inserted FROM ins
    UNION ALL
    SELECT ${columns}, false FROM courses WHERE portal_type = ${portalType} AND code = ANY(${codes}::text[])`;
  const current = new Map(rows.map((c) => [c.code, c]));
  const missing = codes.filter((c) => !current.has(c));
  if (missing.length > 0) {
    for (const c of await tx.$queryRaw<CourseRow[]>`SELECT ${columns}, false AS inserted FROM courses WHERE portal_type = ${portalType} AND code = ANY(${missing}::text[])`) current.set(c.code, c);
  }
  for (const e of entries) {
    const s = current.get(e.code)!;
    courseIds.set(e.code, s.id);
    if (s.inserted) continue;
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
        // Semesters and their courses: one statement (the courses join their semester by year and term).
        if (result.semesters.length > 0) {
          const taken = result.semesters.flatMap((s) => s.courses.map((c, position) => ({ s, c, position })));
          await tx.$executeRaw`
            WITH sem AS (
              INSERT INTO student_semesters (id, student_id, year, term, gpa)
              SELECT gen_random_uuid(), ${studentId}::uuid, s.year, s.term, s.gpa
                FROM unnest(${result.semesters.map((s) => s.year)}::int[], ${result.semesters.map((s) => s.term)}::text[], ${result.semesters.map((s) => s.gpa)}::float8[]) AS s(year, term, gpa)
              RETURNING id, year, term)
            INSERT INTO student_courses (id, student_id, semester_id, course_id, position, credits, credit_correction, grade, area, retake, professor_id)
            SELECT gen_random_uuid(), ${studentId}::uuid, sem.id, c.course_id, c.position, c.credits, c.correction, c.grade, c.area::"CourseArea", c.retake, c.professor_id
              FROM unnest(
                     ${taken.map((t) => t.s.year)}::int[], ${taken.map((t) => t.s.term)}::text[], ${taken.map((t) => courseIds.get(t.c.courseCode)!)}::uuid[],
                     ${taken.map((t) => t.position)}::int[], ${taken.map((t) => t.c.credits)}::float8[], ${taken.map((t) => t.c.creditCorrection)}::float8[],
                     ${taken.map((t) => t.c.grade)}::text[], ${taken.map((t) => t.c.area)}::text[], ${taken.map((t) => t.c.retake)}::boolean[],
                     ${taken.map((t) => (t.c.professor === null ? null : (profIds.get(t.c.professor) ?? null)))}::uuid[])
                   AS c(year, term, course_id, position, credits, correction, grade, area, retake, professor_id)
              JOIN sem ON sem.year = c.year AND sem.term = c.term`;
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
