/**
 * PO-11/PO-12 the academic routes, Bearer-authenticated, about the caller's own student data:
 * `GET /api/graduation/progress` and the course evaluations of the target semester
 * (`GET /api/course-evaluations`, `…/{year}/{term}`, `…/{year}/{term}/courses/{courseCode}`).
 * Missing data is an explicit 4xx with its own code, never an empty success.
 */
import type { PrismaClient } from '@prisma/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { courseEvaluation, courseEvaluations, graduationProgress } from '../../../services/portal/academic';
import { ProblemSchema } from '../../problem';
import {
  ACADEMIC_EXAMPLES,
  academicJson,
  academicProblems,
  CourseEvaluationAnswerSchema,
  GraduationProgressSchema,
  PortalTypeQuery,
  SemesterEvaluationsSchema,
  SemesterParams,
} from './academic-schemas';
import { PO_ERRORS } from '../../../domain/portal/errors';

/** What the academic routes need. */
export interface AcademicRouteDeps {
  db: PrismaClient;
  /** PO-1 the portal types with an adapter; another `portalType` → 400 PORTAL_TYPE_UNSUPPORTED. */
  isPortalType: (type: string) => boolean;
}

/** Registers the PO-11/PO-12 routes. */
export const academicRoutes: FastifyPluginAsyncZod<AcademicRouteDeps> = async (app, deps) => {
  const portalType = (q: { portalType?: string | undefined }): string | undefined => {
    if (q.portalType !== undefined && !deps.isPortalType(q.portalType)) {
      throw PO_ERRORS.problem('PORTAL_TYPE_UNSUPPORTED', `portal type ${q.portalType.slice(0, 40)} is not supported`);
    }
    return q.portalType;
  };

  app.get(
    '/api/graduation/progress',
    {
      schema: {
        tags: ['portal'],
        summary: 'Graduation progress: met / not met per requirement and what is missing (PO-11)',
        description:
          'Combines your student record (admission year, department, major, double major), your own course credits from the ' +
          'portal (a retaken course counts once, a credit correction wins over the catalogue, only passed courses count; ' +
          'designated courses never count) and the graduation rules that apply (total, areas, required courses, double major, ' +
          'language certificate). No student data → 404 PORTAL_STUDENT_NOT_FOUND; no academic record → 422 ' +
          'ACADEMIC_RECORD_NOT_FOUND; no applicable rule → 422 GRADUATION_RULES_NOT_FOUND.',
        querystring: PortalTypeQuery,
        response: {
          200: academicJson(GraduationProgressSchema, 'The progress', ACADEMIC_EXAMPLES.progress),
          400: ProblemSchema,
          401: ProblemSchema,
          404: academicProblems('PORTAL_STUDENT_NOT_FOUND', ['noStudent']),
          422: academicProblems('ACADEMIC_RECORD_NOT_FOUND or GRADUATION_RULES_NOT_FOUND', ['noRecord', 'noRules']),
        },
      },
    },
    async (req) => {
      const { student, progress } = await graduationProgress(deps.db, req.userId, portalType(req.query));
      return {
        student,
        ...progress,
        missing: progress.requirements.flatMap((r) => r.missing.map((m) => ({ requirement: r.id, ...m }))),
      };
    },
  );

  app.get(
    '/api/course-evaluations',
    {
      schema: {
        tags: ['portal'],
        summary: 'Course-evaluation status of the target semester (PO-12)',
        description: 'Each course of the semester evaluations are open for: PENDING, SKIPPED, COMPLETED or NOT_RELEASED. `targetSemester` is null when none is open.',
        querystring: PortalTypeQuery,
        response: {
          200: academicJson(SemesterEvaluationsSchema, 'The target semester and its courses', ACADEMIC_EXAMPLES.evaluations),
          400: ProblemSchema,
          401: ProblemSchema,
          404: academicProblems('PORTAL_STUDENT_NOT_FOUND', ['noStudent']),
        },
      },
    },
    async (req) => courseEvaluations(deps.db, req.userId, { portalType: portalType(req.query) }),
  );

  app.get(
    '/api/course-evaluations/:year/:term',
    {
      schema: {
        tags: ['portal'],
        summary: 'Course-evaluation status of one semester; it must be the target semester (PO-12, else A07)',
        params: SemesterParams,
        querystring: PortalTypeQuery,
        response: {
          200: academicJson(SemesterEvaluationsSchema, 'The semester and its courses', ACADEMIC_EXAMPLES.evaluations),
          400: ProblemSchema,
          401: ProblemSchema,
          404: academicProblems('PORTAL_STUDENT_NOT_FOUND', ['noStudent']),
          422: academicProblems('A07: not the target semester', ['a07']),
        },
      },
    },
    async (req) => courseEvaluations(deps.db, req.userId, { portalType: portalType(req.query), semester: req.params }),
  );

  app.get(
    '/api/course-evaluations/:year/:term/courses/:courseCode',
    {
      schema: {
        tags: ['portal'],
        summary: 'Course-evaluation status of one course of the target semester (PO-12, A07 / A08)',
        params: SemesterParams.extend({ courseCode: z.string().min(1).max(40) }),
        querystring: PortalTypeQuery,
        response: {
          200: academicJson(CourseEvaluationAnswerSchema, 'The course', ACADEMIC_EXAMPLES.evaluation),
          400: ProblemSchema,
          401: ProblemSchema,
          404: academicProblems('PORTAL_STUDENT_NOT_FOUND', ['noStudent']),
          422: academicProblems('A07: not the target semester; A08: not a course of that semester', ['a07', 'a08']),
        },
      },
    },
    async (req) =>
      courseEvaluation(deps.db, req.userId, {
        portalType: portalType(req.query),
        semester: { year: req.params.year, term: req.params.term },
        courseCode: req.params.courseCode,
      }),
  );
};
