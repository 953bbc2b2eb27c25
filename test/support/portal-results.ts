/**
 * Scrape results for post-processing tests (PO-8 … PO-11): a builder of a valid camelCase result
 * (the shape the scraper snake-cases onto the wire) with overridable parts.
 */
import { ScrapeResultSchema, type ScrapeResult, type ScrapeResultInput, type TakenCourse } from '../../src/domain/portal/result';

/** A taken course (input form). */
export function course(courseCode: string, over: Partial<TakenCourse> = {}): ScrapeResultInput['semesters'][number]['courses'][number] {
  return { courseCode, courseName: `Course ${courseCode}`, credits: 3, grade: 'A0', area: 'MAJOR_REQUIRED', professor: 'Kim Minjun', department: 'Computer Science', ...over };
}

/** A valid result for student `studentId`, scraped at `scrapedAt` (ISO), with `over` merged at the top level. */
export function scrapeResult(studentId: string, scrapedAt: string, over: Partial<ScrapeResultInput> = {}): ScrapeResultInput {
  return {
    schemaVersion: 1,
    portalType: 'suwon',
    scrapedAt,
    profile: {
      studentId,
      name: 'Hong Gildong',
      admissionYear: 2022,
      department: 'Computer Science',
      major: 'Computer Science',
      doubleMajor: null,
      enrollmentStatus: 'ENROLLED',
      gradeLevel: 3,
      languageCertificates: [{ kind: 'TOEIC', score: 780, level: null, acquiredOn: '2025-08-20' }],
    },
    academicRecord: { creditsAttempted: 12, creditsEarned: 9, gpa: 3.2 },
    semesters: [
      { year: 2022, term: '1', gpa: 2.5, courses: [course('CS101', { grade: 'F' }), course('GE101', { courseName: 'Academic Writing', credits: 2, creditCorrection: 1, area: 'GE_REQUIRED', professor: null, department: null })] },
      { year: 2022, term: '2', gpa: 3.6, courses: [course('CS101', { grade: 'B+', retake: true }), course('CS210', { area: 'MAJOR_ELECTIVE', professor: 'Lee Seoyeon' })] },
      { year: 2026, term: '2', gpa: null, courses: [course('CS330', { grade: null, area: 'MAJOR_ELECTIVE' })] },
    ],
    designatedCourses: [
      { courseCode: 'CS400', courseName: 'Capstone', credits: 3, area: 'MAJOR_REQUIRED', department: 'Computer Science' },
      { courseCode: 'GE201', courseName: 'Understanding Society', credits: 3, area: 'GE_CORE', department: null },
    ],
    courseEvaluations: { targetSemester: { year: 2026, term: '2' }, items: [{ courseCode: 'CS330', status: 'PENDING' }] },
    ...over,
  };
}

/** {@link scrapeResult} parsed (defaults applied), as post-processing sees it after validation. */
export function parsedResult(studentId: string, scrapedAt: string, over: Partial<ScrapeResultInput> = {}): ScrapeResult {
  return ScrapeResultSchema.parse(scrapeResult(studentId, scrapedAt, over));
}
