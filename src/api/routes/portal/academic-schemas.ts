/**
 * OpenAPI/zod schemas and named examples of the academic routes (PO-11 graduation progress, PO-12
 * course evaluations).
 */
import { z } from 'zod';
import { EvaluationStatusSchema, TermSchema } from '../../../domain/portal/result';
import { PORTAL_TYPES } from '../../../services/portal/adapters/registry';
import { PROBLEM_MEDIA_TYPE, problemBody, ProblemSchema } from '../../problem';

const Credits = z.number().describe('credits');

const CreditsShort = z.object({ type: z.literal('CREDITS_SHORT'), credits: Credits.describe('credits still missing') });
const CourseMissing = z.object({ type: z.literal('COURSE_MISSING'), courseCode: z.string(), courseName: z.string() });
const CertificateMissing = z.object({
  type: z.literal('CERTIFICATE_MISSING'),
  accepted: z.array(z.object({ kind: z.string(), minScore: z.number().nullable(), levels: z.array(z.string()) })).describe('any one of these meets the requirement'),
});

/** One missing item of a requirement. */
export const MissingItemSchema = z.discriminatedUnion('type', [CreditsShort, CourseMissing, CertificateMissing]);

/** A missing item with the id of its requirement (the flat list of the answer). */
export const MissingEntrySchema = z.discriminatedUnion('type', [
  CreditsShort.extend({ requirement: z.string() }),
  CourseMissing.extend({ requirement: z.string() }),
  CertificateMissing.extend({ requirement: z.string() }),
]);

/** PO-11 one requirement's verdict. */
export const RequirementSchema = z.object({
  id: z.string().describe('stable within the answer, e.g. PRIMARY:AREA:Major'),
  kind: z.enum(['TOTAL_CREDITS', 'AREA_CREDITS', 'REQUIRED_COURSES', 'LANGUAGE']),
  scope: z.enum(['PRIMARY', 'DOUBLE_MAJOR']).describe('the major\'s rule or the double major\'s'),
  name: z.string(),
  met: z.boolean(),
  required: Credits.nullable().describe('credit requirements: the minimum'),
  earned: Credits.nullable().describe('credit requirements: what counts (retakes once, corrections win)'),
  missing: z.array(MissingItemSchema),
});

/** PO-11 the answer of `GET /api/graduation/progress`. */
export const GraduationProgressSchema = z
  .object({
    student: z.object({
      portalType: z.string(),
      studentId: z.string(),
      name: z.string(),
      admissionYear: z.number().int(),
      department: z.string(),
      major: z.string(),
      doubleMajor: z.string().nullable(),
      dataAsOf: z.iso.datetime().describe('when the portal data was scraped'),
    }),
    met: z.boolean().describe('every requirement is met'),
    creditsEarned: Credits,
    creditsInProgress: Credits.describe('courses not graded yet (not counted)'),
    rules: z.object({ primary: z.object({ id: z.uuid(), name: z.string() }), doubleMajor: z.object({ id: z.uuid(), name: z.string() }).nullable() }),
    requirements: z.array(RequirementSchema),
    missing: z.array(MissingEntrySchema).describe('every missing item, with the id of its requirement'),
  })
  .meta({ id: 'GraduationProgress' });

/** PO-12 one course's evaluation status. */
export const CourseEvaluationSchema = z.object({
  courseCode: z.string(),
  courseName: z.string().nullable(),
  status: EvaluationStatusSchema.describe('NOT_RELEASED also for a course of the semester the portal lists no evaluation for'),
});

const Semester = z.object({ year: z.number().int(), term: TermSchema });

/** PO-12 the target semester's evaluations. */
export const SemesterEvaluationsSchema = z
  .object({
    portalType: z.string(),
    targetSemester: Semester.nullable().describe('the semester evaluations are open for; null: none'),
    items: z.array(CourseEvaluationSchema),
    dataAsOf: z.iso.datetime(),
  })
  .meta({ id: 'SemesterCourseEvaluations' });

/** PO-12 one course of the target semester. */
export const CourseEvaluationAnswerSchema = CourseEvaluationSchema.extend({ portalType: z.string(), targetSemester: Semester }).meta({ id: 'CourseEvaluation' });

/** `?portalType=`: optional when the user has student data from one portal only. */
export const PortalTypeQuery = z.object({
  portalType: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .meta({ enum: [...PORTAL_TYPES], description: 'the portal; optional when you linked one portal only; another type → 400 PORTAL_TYPE_UNSUPPORTED' }),
});

/** `/{year}/{term}` path parameters. */
export const SemesterParams = z.object({ year: z.coerce.number().int().min(1950).max(2200), term: TermSchema });

const RULE = '60000000-0000-4000-8000-000000000091';
const DM_RULE = '60000000-0000-4000-8000-000000000092';

/** Named examples, OpenAPI's `{ name: { summary, value } }`. */
export const ACADEMIC_EXAMPLES = {
  progress: {
    missing: {
      summary: 'Not met yet: credits short, a required course and the language certificate missing',
      value: {
        student: { portalType: 'suwon', studentId: '20221234', name: 'Hong Gildong', admissionYear: 2022, department: 'Computer Science', major: 'Computer Science', doubleMajor: 'Business Administration', dataAsOf: '2026-12-01T15:00:02.000Z' },
        met: false,
        creditsEarned: 98,
        creditsInProgress: 15,
        rules: { primary: { id: RULE, name: 'Computer Science 2020-2023' }, doubleMajor: { id: DM_RULE, name: 'Business Administration double major' } },
        requirements: [
          { id: 'PRIMARY:TOTAL', kind: 'TOTAL_CREDITS', scope: 'PRIMARY', name: 'Total credits', met: false, required: 130, earned: 98, missing: [{ type: 'CREDITS_SHORT', credits: 32 }] },
          { id: 'PRIMARY:AREA:Major', kind: 'AREA_CREDITS', scope: 'PRIMARY', name: 'Major', met: true, required: 60, earned: 63, missing: [] },
          { id: 'PRIMARY:COURSES', kind: 'REQUIRED_COURSES', scope: 'PRIMARY', name: 'Required courses', met: false, required: null, earned: null, missing: [{ type: 'COURSE_MISSING', courseCode: 'CS400', courseName: 'Capstone Design' }] },
          { id: 'PRIMARY:LANGUAGE', kind: 'LANGUAGE', scope: 'PRIMARY', name: 'Language certificate', met: false, required: null, earned: null, missing: [{ type: 'CERTIFICATE_MISSING', accepted: [{ kind: 'TOEIC', minScore: 700, levels: [] }] }] },
          { id: 'DOUBLE_MAJOR:AREA:Double major', kind: 'AREA_CREDITS', scope: 'DOUBLE_MAJOR', name: 'Double major', met: true, required: 36, earned: 36, missing: [] },
        ],
        missing: [
          { requirement: 'PRIMARY:TOTAL', type: 'CREDITS_SHORT', credits: 32 },
          { requirement: 'PRIMARY:COURSES', type: 'COURSE_MISSING', courseCode: 'CS400', courseName: 'Capstone Design' },
          { requirement: 'PRIMARY:LANGUAGE', type: 'CERTIFICATE_MISSING', accepted: [{ kind: 'TOEIC', minScore: 700, levels: [] }] },
        ],
      },
    },
  },
  evaluations: {
    open: {
      summary: 'The target semester with its courses',
      value: {
        portalType: 'suwon',
        targetSemester: { year: 2026, term: '2' },
        items: [
          { courseCode: 'CS330', courseName: 'Operating Systems', status: 'PENDING' },
          { courseCode: 'GE205', courseName: 'Film and Culture', status: 'COMPLETED' },
          { courseCode: 'CS340', courseName: 'Networks', status: 'NOT_RELEASED' },
        ],
        dataAsOf: '2026-12-01T15:00:02.000Z',
      },
    },
  },
  evaluation: {
    pending: { summary: 'One course', value: { portalType: 'suwon', targetSemester: { year: 2026, term: '2' }, courseCode: 'CS330', courseName: 'Operating Systems', status: 'PENDING' } },
  },
  problems: {
    noStudent: { summary: '404: no student data (link the portal first)', value: problemBody(404, 'PORTAL_STUDENT_NOT_FOUND', 'Portal Student Not Found', 'no student data from portal suwon: link the portal first') },
    noRecord: { summary: '422: the student has no academic record', value: problemBody(422, 'ACADEMIC_RECORD_NOT_FOUND', 'Academic Record Not Found', 'the student has no academic record: refresh the portal link') },
    noRules: {
      summary: '422: no graduation rule applies',
      value: problemBody(422, 'GRADUATION_RULES_NOT_FOUND', 'Graduation Rules Not Found', 'no graduation rule of suwon applies to admission year 2019, department Physics, major Physics'),
    },
    a07: { summary: '422 A07: not the target semester', value: problemBody(422, 'A07', 'Evaluation Semester Mismatch', '2026-1 is not the course-evaluation target semester (2026-2)') },
    a08: { summary: '422 A08: not a course of that semester', value: problemBody(422, 'A08', 'Evaluation Course Mismatch', 'course CS101 is not a course of 2026-2') },
  },
} as const;

/** A problem+json response with some of {@link ACADEMIC_EXAMPLES}.problems. */
export function academicProblems(description: string, names: readonly (keyof typeof ACADEMIC_EXAMPLES.problems)[]) {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema, examples: Object.fromEntries(names.map((n) => [n, ACADEMIC_EXAMPLES.problems[n]])) } } };
}

/** A JSON response with named examples. */
export function academicJson<S extends z.ZodType>(schema: S, description: string, examples: object) {
  return { description, content: { 'application/json': { schema, examples } } };
}
