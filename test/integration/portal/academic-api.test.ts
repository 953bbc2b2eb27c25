/**
 * PO-11/PO-12 the academic routes through `app.inject` on the real PostgreSQL: graduation progress
 * from the stored student data and the rules (retake once, correction wins, met / missing items,
 * double major), the explicit 4xx for no student, no record, no applicable rules, and the course
 * evaluations of the target semester with A07 / A08. The rules loader is idempotent.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/api/app';
import { FAMILY_API } from '../../../src/families';
import { createUserWithToken } from '../../../src/auth/tokens';
import { loadConfig } from '../../../src/families';
import type { JobStarter } from '../../../src/core/starter';
import { createPrisma } from '../../../src/db/client';
import { createLogger } from '../../../src/log';
import { applyGraduationRules, type GraduationRulesDocumentInput } from '../../../src/services/portal/graduation-rules';
import { applyScrapeResult } from '../../../src/services/portal/post-process';
import { createTestDatabase } from '../../support/postgres';
import { course, parsedResult } from '../../support/portal-results';

let db: PrismaClient;
let drop: () => Promise<void>;
let app: FastifyInstance;

const noStarter: JobStarter = { start: () => Promise.reject(new Error('no Temporal in this test')) };

const RULES: GraduationRulesDocumentInput = {
  portalType: 'suwon',
  rules: [
    {
      kind: 'PRIMARY',
      name: 'CS 2020-2023',
      department: 'Computer Science',
      major: 'Computer Science',
      admissionYearFrom: 2020,
      admissionYearTo: 2023,
      totalCredits: 9,
      areas: [
        { name: 'Major', areas: ['MAJOR_REQUIRED', 'MAJOR_ELECTIVE'], minCredits: 6 },
        { name: 'General education', areas: ['GE_REQUIRED', 'GE_CORE', 'GE_ELECTIVE'], minCredits: 2 },
      ],
      requiredCourses: [{ courseCode: 'CS101', courseName: 'Programming' }, { courseCode: 'CS400', courseName: 'Capstone' }],
      languages: [{ kind: 'TOEIC', minScore: 700 }],
    },
    { kind: 'DOUBLE_MAJOR', name: 'Business double major', major: 'Business', admissionYearFrom: 2018, areas: [{ name: 'Double major', areas: ['DOUBLE_MAJOR_REQUIRED', 'DOUBLE_MAJOR_ELECTIVE'], minCredits: 6 }] },
  ],
};

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 5 });
  app = await buildApp({ ...FAMILY_API, config: loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url }), db, starter: noStarter, logger: createLogger('error', 'api') });
});
afterAll(async () => {
  await app?.close();
  await db?.$disconnect();
  await drop?.();
});

async function linkedUser(over: Parameters<typeof parsedResult>[2] = {}) {
  const { userId, token } = await createUserWithToken(db, `po-academic-${randomUUID().slice(0, 8)}`);
  await applyScrapeResult(db, { jobId: randomUUID(), userId, portalType: 'suwon', jobCreatedAt: '2026-12-01T09:00:00.000Z' }, parsedResult('20221234', '2026-12-01T09:00:05.000Z', over));
  return { userId, auth: { authorization: `Bearer ${token}` } };
}
const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });

test('no student, an unknown portal type, no applicable rule and no academic record are explicit 4xx problems', async () => {
  const { token } = await createUserWithToken(db, `po-academic-${randomUUID().slice(0, 8)}`);
  const none = { authorization: `Bearer ${token}` };
  for (const url of ['/api/graduation/progress', '/api/course-evaluations', '/api/course-evaluations/2026/2']) {
    const r = await get(url, none);
    expect([url, r.statusCode, String(r.headers['content-type']).split(';')[0], r.json().code]).toEqual([url, 404, 'application/problem+json', 'PORTAL_STUDENT_NOT_FOUND']);
  }
  expect((await get('/api/graduation/progress?portalType=nowhere', none)).json()).toMatchObject({ status: 400, code: 'PORTAL_TYPE_UNSUPPORTED' });
  expect((await get('/api/graduation/progress', {})).statusCode).toBe(401);

  const physics = await linkedUser({
    profile: { studentId: '20221234', name: 'P', admissionYear: 2022, department: 'Physics', major: 'Physics', enrollmentStatus: 'ENROLLED', gradeLevel: 2 },
  });
  const noRule = await get('/api/graduation/progress?portalType=suwon', physics.auth);
  expect(noRule.statusCode).toBe(422);
  expect(noRule.json()).toMatchObject({ code: 'GRADUATION_RULES_NOT_FOUND' });
  expect(noRule.json().detail).toContain('Physics');

  const cs = await linkedUser();
  await applyGraduationRules(db, RULES);
  await db.academicRecord.deleteMany({ where: { student: { userId: cs.userId } } });
  expect((await get('/api/graduation/progress', cs.auth)).json()).toMatchObject({ status: 422, code: 'ACADEMIC_RECORD_NOT_FOUND' });
});

test('progress: a retake counts once, a correction wins, designated courses never count; missing items are named', async () => {
  await applyGraduationRules(db, RULES);
  const u = await linkedUser();
  const r = await get('/api/graduation/progress', u.auth);
  expect(r.statusCode).toBe(200);
  const body = r.json();
  // CS101 F (2022-1) retaken B+ (2022-2): 3 once; GE101 2 corrected to 1; CS210 3; CS330 not graded (3 in progress).
  expect(body).toMatchObject({ met: false, creditsEarned: 7, creditsInProgress: 3, student: { studentId: '20221234', major: 'Computer Science' }, rules: { doubleMajor: null } });
  const byId = Object.fromEntries((body.requirements as Array<{ id: string }>).map((x) => [x.id, x]));
  expect(byId['PRIMARY:TOTAL']).toMatchObject({ met: false, required: 9, earned: 7, missing: [{ type: 'CREDITS_SHORT', credits: 2 }] });
  expect(byId['PRIMARY:AREA:Major']).toMatchObject({ met: true, earned: 6, missing: [] });
  expect(byId['PRIMARY:AREA:General education']).toMatchObject({ met: false, earned: 1, missing: [{ type: 'CREDITS_SHORT', credits: 1 }] });
  // CS400 is a designated course of the student, not a completed one.
  expect(byId['PRIMARY:COURSES']).toMatchObject({ met: false, missing: [{ type: 'COURSE_MISSING', courseCode: 'CS400' }] });
  expect(byId['PRIMARY:LANGUAGE']).toMatchObject({ met: true });
  expect(body.missing).toEqual([
    { requirement: 'PRIMARY:TOTAL', type: 'CREDITS_SHORT', credits: 2 },
    { requirement: 'PRIMARY:AREA:General education', type: 'CREDITS_SHORT', credits: 1 },
    { requirement: 'PRIMARY:COURSES', type: 'COURSE_MISSING', courseCode: 'CS400', courseName: 'Capstone' },
  ]);
});

test('progress: met when every requirement is; a double major adds its rule, or 422 when it has none; a missing certificate is named', async () => {
  await applyGraduationRules(db, RULES);
  const done = await linkedUser({
    semesters: [
      { year: 2022, term: '1', courses: [course('CS101'), course('CS400'), course('GE101', { area: 'GE_CORE', credits: 2 }), course('BA101', { area: 'DOUBLE_MAJOR_REQUIRED', credits: 6 })] },
    ],
  });
  const met = (await get('/api/graduation/progress', done.auth)).json();
  expect(met).toMatchObject({ met: true, creditsEarned: 14, missing: [] });

  const dm = await linkedUser({
    profile: { studentId: '20221234', name: 'D', admissionYear: 2022, department: 'Computer Science', major: 'Computer Science', doubleMajor: 'Business', enrollmentStatus: 'ENROLLED', gradeLevel: 3, languageCertificates: [] },
  });
  const withDm = (await get('/api/graduation/progress', dm.auth)).json();
  expect(withDm.rules.doubleMajor).toMatchObject({ name: 'Business double major' });
  expect(withDm.missing).toEqual(
    expect.arrayContaining([
      { requirement: 'DOUBLE_MAJOR:AREA:Double major', type: 'CREDITS_SHORT', credits: 6 },
      { requirement: 'PRIMARY:LANGUAGE', type: 'CERTIFICATE_MISSING', accepted: [{ kind: 'TOEIC', minScore: 700, levels: [] }] },
    ]),
  );

  const unknownDm = await linkedUser({
    profile: { studentId: '20221234', name: 'E', admissionYear: 2022, department: 'Computer Science', major: 'Computer Science', doubleMajor: 'Music', enrollmentStatus: 'ENROLLED', gradeLevel: 3 },
  });
  expect((await get('/api/graduation/progress', unknownDm.auth)).json()).toMatchObject({ status: 422, code: 'GRADUATION_RULES_NOT_FOUND' });
});

test('the rules loader is idempotent (a second run keeps the rules, their ids and child rows) and refuses an invalid document', async () => {
  const first = await applyGraduationRules(db, RULES);
  const counts = async () => [await db.graduationRule.count(), await db.graduationRuleArea.count(), await db.graduationRuleCourse.count(), await db.graduationRuleLanguage.count()];
  const before = await counts();
  expect(await applyGraduationRules(db, RULES)).toEqual(first);
  expect(await counts()).toEqual(before);
  await expect(applyGraduationRules(db, { portalType: 'suwon', rules: [] })).rejects.toThrow();
  await expect(applyGraduationRules(db, { portalType: 'suwon', rules: [{ ...RULES.rules[0]!, name: 'reversed', admissionYearFrom: 2024, admissionYearTo: 2020 }] })).rejects.toThrow(/admissionYearTo/);
  expect(await counts()).toEqual(before);
});

test('course evaluations of the target semester; another semester is A07, a course not in it A08', async () => {
  const u = await linkedUser({
    semesters: [
      { year: 2026, term: '1', courses: [course('CS101')] },
      { year: 2026, term: '2', courses: [course('CS330', { grade: null }), course('CS340', { grade: null })] },
    ],
    courseEvaluations: { targetSemester: { year: 2026, term: '2' }, items: [{ courseCode: 'CS330', status: 'COMPLETED' }, { courseCode: 'GE205', status: 'SKIPPED' }] },
  });
  const all = await get('/api/course-evaluations', u.auth);
  expect(all.statusCode).toBe(200);
  expect(all.json()).toMatchObject({
    targetSemester: { year: 2026, term: '2' },
    items: [
      { courseCode: 'CS330', courseName: 'Course CS330', status: 'COMPLETED' },
      { courseCode: 'CS340', status: 'NOT_RELEASED' },
      { courseCode: 'GE205', status: 'SKIPPED' },
    ],
  });
  expect((await get('/api/course-evaluations/2026/2', u.auth)).json()).toEqual(all.json());
  expect((await get('/api/course-evaluations/2026/2/courses/CS330', u.auth)).json()).toMatchObject({ courseCode: 'CS330', status: 'COMPLETED', targetSemester: { year: 2026, term: '2' } });

  const a07 = await get('/api/course-evaluations/2026/1', u.auth);
  expect([a07.statusCode, a07.json().code]).toEqual([422, 'A07']);
  expect((await get('/api/course-evaluations/2026/1/courses/CS101', u.auth)).json()).toMatchObject({ status: 422, code: 'A07' });
  const a08 = await get('/api/course-evaluations/2026/2/courses/CS101', u.auth);
  expect([a08.statusCode, a08.json().code]).toEqual([422, 'A08']);
  expect((await get('/api/course-evaluations/2026/3', u.auth)).json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });

  const closed = await linkedUser({ courseEvaluations: null });
  expect((await get('/api/course-evaluations', closed.auth)).json()).toMatchObject({ targetSemester: null, items: [] });
  expect((await get('/api/course-evaluations/2026/2', closed.auth)).json()).toMatchObject({ status: 422, code: 'A07' });
});
