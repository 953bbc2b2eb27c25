/**
 * PO-5/PO-8 the scrape result: what the scraper writes to object storage as JSON with snake_case
 * keys (as the original Python scraper did) and what post-processing reads back after normalising
 * keys to camelCase ({@link camelizeKeys}) and validating with {@link ScrapeResultSchema} (an
 * invalid result is C17, PO-10). Pure and workflow-safe: no I/O.
 */
import { z } from 'zod';

/** Version of the result document's shape; a scraper writing another version is rejected (C17). */
export const SCRAPE_RESULT_SCHEMA_VERSION = 1;

/** Term of a semester: first, second, summer or winter session. */
export const TermSchema = z.enum(['1', '2', 'SUMMER', 'WINTER']);
export type Term = z.infer<typeof TermSchema>;

/** A semester reference. */
export const SemesterRefSchema = z.object({ year: z.number().int().min(1950).max(2200), term: TermSchema });
export type SemesterRef = z.infer<typeof SemesterRefSchema>;

/**
 * Course area used by the graduation rules (PO-11): general education (required, core, elective),
 * major required / elective, double major required / elective, free elective.
 */
export const CourseAreaSchema = z.enum([
  'GE_REQUIRED',
  'GE_CORE',
  'GE_ELECTIVE',
  'MAJOR_REQUIRED',
  'MAJOR_ELECTIVE',
  'DOUBLE_MAJOR_REQUIRED',
  'DOUBLE_MAJOR_ELECTIVE',
  'FREE_ELECTIVE',
]);
export type CourseArea = z.infer<typeof CourseAreaSchema>;

/** Letter grade as the portal shows it; P/NP pass-fail, W withdrawn, null = not graded yet. */
export const GradeSchema = z.enum(['A+', 'A0', 'A-', 'B+', 'B0', 'B-', 'C+', 'C0', 'C-', 'D+', 'D0', 'D-', 'F', 'P', 'NP', 'W']).nullable();

const text = z.string().trim().min(1).max(200);
const code = z.string().trim().min(1).max(40);
const credits = z.number().min(0).max(30);

/**
 * One course a student took in a semester. `credits` is the catalogue value; `creditCorrection`
 * (when not null) is the credits the university recognised for this student instead (it wins,
 * PO-11). `retake: true` marks a retaken course (the earlier attempt does not count).
 */
export const TakenCourseSchema = z.object({
  courseCode: code,
  courseName: text,
  credits,
  creditCorrection: credits.nullable().default(null),
  grade: GradeSchema,
  area: CourseAreaSchema,
  professor: text.nullable().default(null),
  department: text.nullable().default(null),
  retake: z.boolean().default(false),
});
export type TakenCourse = z.infer<typeof TakenCourseSchema>;

/** A semester with its courses (PO-8 grades and courses per semester). */
export const SemesterSchema = SemesterRefSchema.extend({
  gpa: z.number().min(0).max(4.5).nullable().default(null),
  courses: z.array(TakenCourseSchema).max(100),
});
export type Semester = z.infer<typeof SemesterSchema>;

/** A course the department designated for the student (PO-9); never a completed course. */
export const DesignatedCourseSchema = z.object({
  courseCode: code,
  courseName: text,
  credits,
  area: CourseAreaSchema,
  department: text.nullable().default(null),
});
export type DesignatedCourse = z.infer<typeof DesignatedCourseSchema>;

/** A language certificate on record (PO-11 language requirement). */
export const LanguageCertificateSchema = z.object({
  kind: z.string().trim().min(1).max(40),
  score: z.number().min(0).max(10_000).nullable().default(null),
  level: z.string().trim().min(1).max(40).nullable().default(null),
  acquiredOn: z.string().date(),
});
export type LanguageCertificate = z.infer<typeof LanguageCertificateSchema>;

/** PO-12 course-evaluation status of one course in the target semester. */
export const EvaluationStatusSchema = z.enum(['PENDING', 'SKIPPED', 'COMPLETED', 'NOT_RELEASED']);
export type EvaluationStatus = z.infer<typeof EvaluationStatusSchema>;

/** PO-12 the course evaluations of the portal's target semester. */
export const CourseEvaluationsSchema = z.object({
  targetSemester: SemesterRefSchema,
  items: z.array(z.object({ courseCode: code, status: EvaluationStatusSchema })).max(100),
});
export type CourseEvaluations = z.infer<typeof CourseEvaluationsSchema>;

/** Student profile (PO-8, PO-11: admission year, department, major, double major). */
export const StudentProfileSchema = z.object({
  studentId: code,
  name: text,
  admissionYear: z.number().int().min(1950).max(2200),
  department: text,
  major: text,
  doubleMajor: text.nullable().default(null),
  enrollmentStatus: text,
  gradeLevel: z.number().int().min(1).max(8),
  languageCertificates: z.array(LanguageCertificateSchema).max(50).default([]),
});
export type StudentProfile = z.infer<typeof StudentProfileSchema>;

/** Academic record totals as the portal states them (kept as reported; PO-11 recomputes credits). */
export const AcademicRecordSchema = z.object({
  creditsAttempted: z.number().min(0).max(1000),
  creditsEarned: z.number().min(0).max(1000),
  gpa: z.number().min(0).max(4.5).nullable(),
});
export type AcademicRecord = z.infer<typeof AcademicRecordSchema>;

/**
 * The whole result (camelCase, after {@link camelizeKeys}). `designatedCourses`: absent or null →
 * keep the stored list; [] → delete all; non-empty → replace all in order, duplicates kept (PO-9).
 * `scrapedAt` (ISO 8601) orders results: one older than its job's createdAt is ignored (PO-9).
 */
export const ScrapeResultSchema = z.object({
  schemaVersion: z.literal(SCRAPE_RESULT_SCHEMA_VERSION),
  portalType: z.string().min(1).max(40),
  scrapedAt: z.string().datetime({ offset: true }),
  profile: StudentProfileSchema,
  academicRecord: AcademicRecordSchema,
  semesters: z.array(SemesterSchema).max(40),
  designatedCourses: z.array(DesignatedCourseSchema).max(200).nullish(),
  courseEvaluations: CourseEvaluationsSchema.nullable().default(null),
});
/** Parsed result (output of the schema: defaults applied). */
export type ScrapeResult = z.infer<typeof ScrapeResultSchema>;
/** What a scraper builds before {@link snakeizeKeys} (defaults optional). */
export type ScrapeResultInput = z.input<typeof ScrapeResultSchema>;

function mapKeys(value: unknown, key: (k: string) => string, depth: number): unknown {
  if (depth > 32) throw new RangeError('result nested deeper than 32 levels');
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, key, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[key(k)] = mapKeys(v, key, depth + 1);
    return out;
  }
  return value;
}

/**
 * PO-8 snake_case → camelCase for object keys at every depth (values untouched): `result_s3_key` →
 * `resultS3Key`. @throws RangeError past 32 levels of nesting.
 */
export function camelizeKeys(value: unknown): unknown {
  return mapKeys(value, (k) => k.replace(/_+([a-z0-9])/g, (_m, c: string) => c.toUpperCase()), 0);
}

/** camelCase → snake_case for object keys at every depth (the scraper's wire form). */
export function snakeizeKeys(value: unknown): unknown {
  return mapKeys(value, (k) => k.replace(/([A-Z])/g, (c) => `_${c.toLowerCase()}`), 0);
}

/** Outcome of {@link parseScrapeResult}: the result, or the zod issues (C17). */
export type ParsedScrapeResult = { ok: true; result: ScrapeResult } | { ok: false; issues: z.ZodIssue[] };

/** PO-8/PO-10 camelize then validate a decoded JSON document; never throws. */
export function parseScrapeResult(json: unknown): ParsedScrapeResult {
  let camel: unknown;
  try {
    camel = camelizeKeys(json);
  } catch (err) {
    return { ok: false, issues: [{ code: 'custom', path: [], message: (err as Error).message }] };
  }
  const parsed = ScrapeResultSchema.safeParse(camel);
  return parsed.success ? { ok: true, result: parsed.data } : { ok: false, issues: parsed.error.issues };
}
