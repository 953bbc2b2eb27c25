/**
 * PO-8/PO-9/PO-10 applying a validated scrape result on the real PostgreSQL: everything lands in
 * one transaction (profile, record, semesters and courses, reference data, certificates,
 * evaluations, designated courses); the three designatedCourses cases; results of two jobs
 * arriving out of order; a repeated apply; concurrent students sharing courses without duplicate
 * reference rows; and a database rejection (C18) that leaves no partial write.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createPrisma } from '../../../src/db/client';
import { applyScrapeResult } from '../../../src/services/portal/post-process';
import { PostProcessError } from '../../../src/services/portal/scrape-result';
import { pollUntil } from '../../support/poll';
import { createTestDatabase } from '../../support/postgres';
import { course, parsedResult } from '../../support/portal-results';

let db: PrismaClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 8 });
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

const newUser = async () => (await createUserWithToken(db, `po-apply-${randomUUID().slice(0, 8)}`)).userId;
const job = (userId: string, createdAt: string) => ({ jobId: randomUUID(), userId, portalType: 'suwon', jobCreatedAt: createdAt });
const student = (userId: string) => db.student.findUniqueOrThrow({ where: { userId_portalType: { userId, portalType: 'suwon' } } });
const designated = async (userId: string) =>
  (await db.designatedCourse.findMany({ where: { student: { userId } }, orderBy: { position: 'asc' } })).map((d) => d.courseCode);

test('a first result stores the profile, record, semesters with courses, reference data, certificates, evaluations and designated courses', async () => {
  const userId = await newUser();
  const j = job(userId, '2026-12-01T10:00:00.000Z');
  const out = await applyScrapeResult(db, j, parsedResult('20221234', '2026-12-01T10:00:05.000Z'));

  // Credits: CS101 F then retaken B+ (3, once), GE101 corrected to 1, CS210 3, CS330 not graded: 7. Designated courses never count.
  expect(out).toMatchObject({ applied: true, ignoredReason: null, semesters: 3, courses: 5, designatedCoursesVersion: 1 });
  expect(out.summary).toEqual({
    studentId: '20221234', name: 'Hong Gildong', admissionYear: 2022, department: 'Computer Science', major: 'Computer Science',
    doubleMajor: null, enrollmentStatus: 'ENROLLED', gradeLevel: 3, creditsEarned: 7, gpa: 3.2, semesters: 3, courses: 5,
    designatedCourses: 2, dataAsOf: '2026-12-01T10:00:05.000Z',
  });
  const s = await student(userId);
  expect(s).toMatchObject({ snapshotVersion: 1, sourceJobId: j.jobId, evaluationYear: 2026, evaluationTerm: '2' });
  const taken = await db.studentCourse.findMany({ where: { studentId: s.id }, include: { course: true, semester: true, professor: true }, orderBy: [{ semester: { year: 'asc' } }, { semester: { term: 'asc' } }, { position: 'asc' }] });
  expect(taken.map((t) => [t.semester.year, t.semester.term, t.position, t.course.code, t.grade, t.retake, t.creditCorrection, t.professor?.name ?? null])).toEqual([
    [2022, '1', 0, 'CS101', 'F', false, null, 'Kim Minjun'],
    [2022, '1', 1, 'GE101', 'A0', false, 1, null],
    [2022, '2', 0, 'CS101', 'B+', true, null, 'Kim Minjun'],
    [2022, '2', 1, 'CS210', 'A0', false, null, 'Lee Seoyeon'],
    [2026, '2', 0, 'CS330', null, false, null, 'Kim Minjun'],
  ]);
  const cs101 = await db.course.findUniqueOrThrow({ where: { portalType_code: { portalType: 'suwon', code: 'CS101' } }, include: { department: true } });
  expect(cs101).toMatchObject({ name: 'Course CS101', credits: 3, area: 'MAJOR_REQUIRED', department: { name: 'Computer Science' } });
  expect(await db.course.findUnique({ where: { portalType_code: { portalType: 'suwon', code: 'CS400' } } })).toMatchObject({ name: 'Capstone' }); // designated → catalogue
  expect(await db.academicRecord.findUniqueOrThrow({ where: { studentId: s.id } })).toMatchObject({ creditsAttempted: 12, creditsEarned: 9, gpa: 3.2 });
  expect(await db.languageCertificate.findMany({ where: { studentId: s.id } })).toEqual([expect.objectContaining({ kind: 'TOEIC', score: 780 })]);
  expect(await db.courseEvaluation.findMany({ where: { studentId: s.id } })).toEqual([expect.objectContaining({ year: 2026, term: '2', courseCode: 'CS330', status: 'PENDING' })]);
  expect(await designated(userId)).toEqual(['CS400', 'GE201']);
});

test('PO-9 designatedCourses: absent or null keep the list and its version; [] deletes all (version + 1); a list replaces all in order, duplicates kept', async () => {
  const userId = await newUser();
  let t = Date.parse('2026-12-01T11:00:00.000Z');
  const next = () => {
    t += 60_000;
    return { j: job(userId, new Date(t).toISOString()), at: new Date(t + 1000).toISOString() };
  };
  const apply = async (designatedCourses: unknown) => {
    const { j, at } = next();
    const r = parsedResult('20221234', at, designatedCourses === 'default' || designatedCourses === 'absent' ? {} : { designatedCourses: designatedCourses as never });
    if (designatedCourses === 'absent') delete (r as { designatedCourses?: unknown }).designatedCourses;
    return applyScrapeResult(db, j, r);
  };

  expect((await apply('default')).designatedCoursesVersion).toBe(1); // the builder's default list (first link)
  const absent = await apply('absent');
  expect(absent).toMatchObject({ applied: true, designatedCoursesVersion: 1 });
  expect(await designated(userId)).toEqual(['CS400', 'GE201']);
  expect((await apply(null)).designatedCoursesVersion).toBe(1);
  expect(await designated(userId)).toEqual(['CS400', 'GE201']);

  const dup = [
    { courseCode: 'GE201', courseName: 'Understanding Society', credits: 3, area: 'GE_CORE' },
    { courseCode: 'CS400', courseName: 'Capstone', credits: 3, area: 'MAJOR_REQUIRED' },
    { courseCode: 'GE201', courseName: 'Understanding Society', credits: 3, area: 'GE_CORE' },
  ];
  const replaced = await apply(dup);
  expect(replaced).toMatchObject({ designatedCoursesVersion: 2, summary: { designatedCourses: 3, creditsEarned: 7 } });
  expect(await designated(userId)).toEqual(['GE201', 'CS400', 'GE201']);

  const cleared = await apply([]);
  expect(cleared).toMatchObject({ designatedCoursesVersion: 3, summary: { designatedCourses: 0, creditsEarned: 7 } });
  expect(await designated(userId)).toEqual([]);
  expect((await student(userId)).snapshotVersion).toBe(5);
});

test('PO-9 results of two jobs arriving out of order: the older one is ignored after the lock and the snapshot comparison', async () => {
  const userId = await newUser();
  const j1 = job(userId, '2026-12-01T12:00:00.000Z');
  const j2 = job(userId, '2026-12-01T12:05:00.000Z');
  const r1 = parsedResult('20221234', '2026-12-01T12:01:00.000Z', { academicRecord: { creditsAttempted: 12, creditsEarned: 9, gpa: 3.1 } });
  const r2 = parsedResult('20221234', '2026-12-01T12:06:00.000Z', { academicRecord: { creditsAttempted: 15, creditsEarned: 12, gpa: 3.4 }, designatedCourses: [] });

  expect(await applyScrapeResult(db, j2, r2)).toMatchObject({ applied: true, designatedCoursesVersion: 1 }); // [] bumps the version
  const late = await applyScrapeResult(db, j1, r1);
  expect(late).toMatchObject({ applied: false, ignoredReason: 'older-than-snapshot', summary: { gpa: 3.4, dataAsOf: '2026-12-01T12:06:00.000Z', designatedCourses: 0 } });
  expect(await student(userId)).toMatchObject({ snapshotVersion: 1, sourceJobId: j2.jobId, designatedCoursesVersion: 1 });
  expect(await designated(userId)).toEqual([]);

  // In order, both apply; a result scraped before its own job was created is ignored once data exists.
  const other = await newUser();
  const k1 = job(other, '2026-12-01T12:00:00.000Z');
  const k2 = job(other, '2026-12-01T12:05:00.000Z');
  expect(await applyScrapeResult(db, k1, r1)).toMatchObject({ applied: true });
  expect(await applyScrapeResult(db, k2, r2)).toMatchObject({ applied: true, summary: { gpa: 3.4 } });
  expect((await student(other)).snapshotVersion).toBe(2);
  const k3 = job(other, '2026-12-01T13:00:00.000Z');
  expect(await applyScrapeResult(db, k3, parsedResult('20221234', '2026-12-01T12:59:00.000Z'))).toMatchObject({ applied: false, ignoredReason: 'older-than-job' });
});

test('PO-9 the older job waiting on the student lock while the newer one applies is ignored once it gets the lock', async () => {
  const userId = await newUser();
  const older = job(userId, '2026-12-01T12:30:00.000Z');
  const newer = job(userId, '2026-12-01T12:35:00.000Z');
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const first = applyScrapeResult(db, newer, parsedResult('20221234', '2026-12-01T12:35:30.000Z'), {
    afterLock: async () => {
      locked();
      await released;
    },
  });
  await isLocked;
  const second = applyScrapeResult(db, older, parsedResult('20221234', '2026-12-01T12:31:00.000Z'));
  // The older job's transaction waits for the student lock (an ungranted advisory lock) before reading anything.
  await pollUntil(
    async () => (await db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)[0]!.n,
    (n) => n >= 1,
    { describe: 'the older job to wait for the student lock', timeoutMs: 10_000 },
  );
  release();
  expect(await first).toMatchObject({ applied: true });
  expect(await second).toMatchObject({ applied: false, ignoredReason: 'older-than-snapshot', summary: { dataAsOf: '2026-12-01T12:35:30.000Z' } });
  expect(await student(userId)).toMatchObject({ snapshotVersion: 1, sourceJobId: newer.jobId });
});

test('the same job applied twice (an activity retry after commit) changes nothing and answers like the first', async () => {
  const userId = await newUser();
  const j = job(userId, '2026-12-01T13:00:00.000Z');
  const r = parsedResult('20221234', '2026-12-01T13:00:10.000Z');
  const first = await applyScrapeResult(db, j, r);
  const before = await student(userId);
  const again = await applyScrapeResult(db, j, r);
  expect(again).toEqual(first);
  expect(await student(userId)).toEqual(before);
});

test('two jobs of one student at once are serialised by the student lock', async () => {
  const userId = await newUser();
  const results = await Promise.all(
    [1, 2, 3].map((i) => applyScrapeResult(db, job(userId, `2026-12-01T14:0${i}:00.000Z`), parsedResult('20221234', `2026-12-01T14:0${i}:30.000Z`))),
  );
  const s = await student(userId);
  expect(s.snapshotVersion).toBe(results.filter((r) => r.applied).length);
  expect(s.dataAsOf.toISOString()).toBe('2026-12-01T14:03:30.000Z');
  expect(await db.studentSemester.count({ where: { studentId: s.id } })).toBe(3);
});

test('concurrent results of two students sharing new courses, professors and departments leave one reference row each', async () => {
  const tag = randomUUID().slice(0, 6).toUpperCase();
  const codes = [`S${tag}1`, `S${tag}2`, `S${tag}3`];
  const dept = `Dept ${tag}`;
  const shared = codes.map((c) => course(c, { professor: `Prof ${tag}`, department: dept }));
  const users = [await newUser(), await newUser()];
  // Both transactions hold their own student lock and wait for each other before writing, so the
  // reference upserts really race.
  let arrived = 0;
  let release!: () => void;
  const barrier = new Promise<void>((r) => (release = r));
  const afterLock = async () => {
    arrived += 1;
    if (arrived === 2) release();
    await barrier;
  };
  const outs = await Promise.all(
    users.map((u, i) =>
      applyScrapeResult(
        db,
        job(u, '2026-12-01T15:00:00.000Z'),
        parsedResult(`2023000${i}`, '2026-12-01T15:00:01.000Z', {
          profile: { studentId: `2023000${i}`, name: `Student ${i}`, admissionYear: 2023, department: dept, major: 'Computer Science', enrollmentStatus: 'ENROLLED', gradeLevel: 2 },
          semesters: [{ year: 2023, term: '1', courses: i === 0 ? shared : [...shared].reverse() }],
          designatedCourses: [{ courseCode: codes[0]!, courseName: 'x', credits: 3, area: 'MAJOR_REQUIRED' }],
        }),
        { afterLock },
      ),
    ),
  );
  expect(outs.map((o) => o.applied)).toEqual([true, true]);
  expect(await db.course.count({ where: { code: { in: codes } } })).toBe(3);
  expect(await db.department.count({ where: { name: dept } })).toBe(1);
  expect(await db.professor.count({ where: { name: `Prof ${tag}` } })).toBe(1);
  expect(await db.studentCourse.count({ where: { course: { code: { in: codes } } } })).toBe(6);
});

test('C18: a value the database rejects fails the apply with nothing written, and the earlier data stays', async () => {
  const userId = await newUser();
  const tag = randomUUID().slice(0, 6).toUpperCase();
  const bad = (at: string) =>
    parsedResult('20221234', at, { semesters: [{ year: 2023, term: '1', courses: [course(`N${tag}`), course(`Z${tag}`, { courseName: 'nul \u0000 inside' })] }] });

  const err = await applyScrapeResult(db, job(userId, '2026-12-01T16:00:00.000Z'), bad('2026-12-01T16:00:01.000Z')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PostProcessError);
  expect(err).toMatchObject({ type: 'PORTAL_RESULT_APPLY_FAILED', details: { code: 'C18' } });
  expect(await db.student.findUnique({ where: { userId_portalType: { userId, portalType: 'suwon' } } })).toBeNull();
  expect(await db.course.count({ where: { code: { in: [`N${tag}`, `Z${tag}`] } } })).toBe(0); // reference data rolled back too

  await applyScrapeResult(db, job(userId, '2026-12-01T16:01:00.000Z'), parsedResult('20221234', '2026-12-01T16:01:01.000Z'));
  const before = await student(userId);
  await expect(applyScrapeResult(db, job(userId, '2026-12-01T16:02:00.000Z'), bad('2026-12-01T16:02:01.000Z'))).rejects.toMatchObject({ details: { code: 'C18' } });
  expect(await student(userId)).toEqual(before);
  expect(await db.studentCourse.count({ where: { studentId: before.id } })).toBe(5);
});

test('PO-8 a course whose catalogue entry changed is updated from a later result; its id and an unchanged course stay', async () => {
  const code = `CX${randomUUID().slice(0, 6)}`;
  const other = `CY${randomUUID().slice(0, 6)}`;
  const semesters = (name: string, credits: number) => [{ year: 2023, term: '1' as const, gpa: 3.5, courses: [course(code, { courseName: name, credits }), course(other)] }];
  const first = await newUser();
  await applyScrapeResult(db, job(first, '2026-12-01T13:00:00.000Z'), parsedResult('20231111', '2026-12-01T13:00:05.000Z', { semesters: semesters('Old name', 3) }));
  const before = await db.course.findUniqueOrThrow({ where: { portalType_code: { portalType: 'suwon', code } } });
  const untouched = await db.course.findUniqueOrThrow({ where: { portalType_code: { portalType: 'suwon', code: other } } });
  const second = await newUser();
  await applyScrapeResult(db, job(second, '2026-12-01T13:01:00.000Z'), parsedResult('20231112', '2026-12-01T13:01:05.000Z', { semesters: semesters('New name', 2) }));
  const after = await db.course.findUniqueOrThrow({ where: { portalType_code: { portalType: 'suwon', code } } });
  expect(after).toMatchObject({ id: before.id, name: 'New name', credits: 2 });
  expect(await db.course.findUniqueOrThrow({ where: { portalType_code: { portalType: 'suwon', code: other } } })).toEqual(untouched);
  expect(await db.course.count({ where: { portalType: 'suwon', code: { in: [code, other] } } })).toBe(2);
  const s2 = await student(second);
  expect(await db.studentCourse.findMany({ where: { studentId: s2.id }, select: { courseId: true, credits: true }, orderBy: { position: 'asc' } })).toEqual([
    { courseId: before.id, credits: 2 },
    { courseId: untouched.id, credits: 3 },
  ]);
});
