/**
 * PO-9/PO-11 the portal emulator's seeded students (test/support/portal-seed.ts), as a correct
 * scraper reads them, applied and measured against the suwon graduation rules seed: every seeded
 * student has an applicable rule (the seed and the rules share src/domain/portal/suwon-university.ts),
 * the retake and the credit correction count as the university counts them, the double major gets
 * its rule, a missing certificate is named, and the absent / empty designated lists follow PO-9.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createPrisma } from '../../../src/db/client';
import { ScrapeResultSchema } from '../../../src/domain/portal/result';
import { graduationProgress } from '../../../src/services/portal/academic';
import { applyScrapeResult } from '../../../src/services/portal/post-process';
import { seedSuwonGraduationRules } from '../../../src/services/portal/suwon-graduation-rules';
import { expectedScrape, SEED_STUDENTS, SEEDED, type SeedStudent } from '../../support/portal-seed';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 5 });
  await seedSuwonGraduationRules(db);
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

async function link(s: SeedStudent) {
  const { userId } = await createUserWithToken(db, `po-seeded-${randomUUID().slice(0, 8)}`);
  const result = ScrapeResultSchema.parse({ ...expectedScrape(s), scrapedAt: '2026-12-01T15:00:01.000Z' });
  const out = await applyScrapeResult(db, { jobId: randomUUID(), userId, portalType: 'suwon', jobCreatedAt: '2026-12-01T15:00:00.000Z' }, result);
  return { userId, out };
}

test('every seeded student has an applicable rule; the rules seed is idempotent', async () => {
  const ids = await seedSuwonGraduationRules(db);
  expect(await seedSuwonGraduationRules(db)).toEqual(ids);
  for (const s of Object.values(SEED_STUDENTS)) {
    const { userId } = await link(s);
    const { progress } = await graduationProgress(db, userId, 'suwon');
    expect({ student: s.studentId, rules: progress.requirements.length > 0 }).toEqual({ student: s.studentId, rules: true });
  }
});

test('a retake counts once and a credit correction wins (the retake-and-correction student)', async () => {
  const { userId, out } = await link(SEEDED.retakeAndCorrection);
  // 12 + 8 (CSE201 F superseded) + 11 (CSE201 retaken) + 7 (CSE302 corrected 3 → 2) + 6 (GEN203 withdrawn); 2026-2 in progress.
  expect(out.summary).toMatchObject({ creditsEarned: 44, designatedCourses: 3 });
  const { progress } = await graduationProgress(db, userId);
  expect(progress).toMatchObject({ met: false, creditsEarned: 44, creditsInProgress: 6, rules: { primary: { name: '컴퓨터SW 2020-2023' }, doubleMajor: null } });
  const byId = Object.fromEntries(progress.requirements.map((r) => [r.id, r]));
  expect(byId['PRIMARY:AREA:교양필수']).toMatchObject({ met: true, earned: 7 });
  expect(byId['PRIMARY:AREA:교양']).toMatchObject({ met: false, earned: 16, missing: [{ type: 'CREDITS_SHORT', credits: 14 }] });
  expect(byId['PRIMARY:COURSES']).toMatchObject({ missing: [{ type: 'COURSE_MISSING', courseCode: 'CSE401' }] }); // CSE201 passed on its retake
  expect(byId['PRIMARY:LANGUAGE']).toMatchObject({ met: true });
});

test('the double major gets its rule, and the missing language certificate is named', async () => {
  const { userId, out } = await link(SEEDED.doubleMajorNoCertificate);
  expect(out).toMatchObject({ designatedCoursesVersion: 1, summary: { designatedCourses: 0 } }); // [] on the first link
  const { progress } = await graduationProgress(db, userId);
  expect(progress.rules).toMatchObject({ primary: { name: '경영학 2018-' }, doubleMajor: { name: '컴퓨터SW 복수전공' } });
  const byId = Object.fromEntries(progress.requirements.map((r) => [r.id, r]));
  expect(byId['DOUBLE_MAJOR:AREA:복수전공']).toMatchObject({ met: false, earned: 6, missing: [{ type: 'CREDITS_SHORT', credits: 30 }] });
  expect(byId['DOUBLE_MAJOR:COURSES']).toMatchObject({ met: true });
  expect(byId['PRIMARY:LANGUAGE']).toMatchObject({ met: false, missing: [{ type: 'CERTIFICATE_MISSING' }] });
});

test('an absent designated list keeps version 0; an OPIc level certificate meets the language rule', async () => {
  const { userId, out } = await link(SEEDED.designatedAbsent);
  expect(out).toMatchObject({ designatedCoursesVersion: 0, summary: { designatedCourses: 0 } });
  const { progress } = await graduationProgress(db, userId);
  expect(progress.requirements.find((r) => r.id === 'PRIMARY:LANGUAGE')).toMatchObject({ met: true });
});
