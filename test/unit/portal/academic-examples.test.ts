/**
 * PO-11/PO-12 the OpenAPI examples of the academic routes are valid answers: each parses with the
 * response schema it documents (so the published document cannot drift from what is served).
 */
import { ACADEMIC_EXAMPLES, CourseEvaluationAnswerSchema, GraduationProgressSchema, SemesterEvaluationsSchema } from '../../../src/api/routes/portal/academic-schemas';
import { ProblemSchema } from '../../../src/api/problem';
import { assembleErrorRegistry } from '../../../src/core/errors';
import { PO_ERRORS } from '../../../src/domain/portal/errors';

test.each([
  ['progress', GraduationProgressSchema, ACADEMIC_EXAMPLES.progress],
  ['evaluations', SemesterEvaluationsSchema, ACADEMIC_EXAMPLES.evaluations],
  ['evaluation', CourseEvaluationAnswerSchema, ACADEMIC_EXAMPLES.evaluation],
] as const)('the %s examples match their schema', (_name, schema, examples) => {
  for (const ex of Object.values(examples)) expect(schema.safeParse(ex.value).error?.issues).toBeUndefined();
});

test('the problem examples are problems with the family\'s codes, and their registered statuses and titles', () => {
  const problems = assembleErrorRegistry([PO_ERRORS]).problems;
  for (const ex of Object.values(ACADEMIC_EXAMPLES.problems)) {
    expect(ProblemSchema.safeParse(ex.value).success).toBe(true);
    expect(Object.keys(PO_ERRORS.problems)).toContain(ex.value.code);
    const registered = problems.get(ex.value.code);
    expect({ status: ex.value.status, title: ex.value.title }).toEqual({ status: registered?.status, title: registered?.title });
  }
});
