/**
 * The error registry (src/core/errors.ts, src/core/problems.ts): assembled from the core's
 * vocabulary and every manifest's, each problem code with one status and title, each failure type
 * with one retry class; a code or type declared twice in disagreement is refused.
 */
import { DomainError } from '../../../src/core/domain-error';
import { assembleErrorRegistry, CORE_ERRORS, CORE_ERROR_REGISTRY, defineErrors } from '../../../src/core/errors';
import { defineProblems, problemRegistry, resolveProblem } from '../../../src/core/problems';
import { SAN_ERRORS } from '../../../src/domain/scraps/errors';
import { ERROR_REGISTRY, FAMILIES } from '../../../src/families';

const vocabularies = FAMILIES.flatMap((f) => f.errors.map((v) => [f.name, v] as const));

describe('the assembled registry', () => {
  it('holds every problem code of the core and of every family, each with an HTTP error status and a title', () => {
    const declared = [CORE_ERRORS, ...vocabularies.map(([, v]) => v)].flatMap((v) => Object.entries(v.problems));
    expect(declared.length).toBeGreaterThan(60);
    for (const [code, spec] of declared) {
      const registered = ERROR_REGISTRY.problems.get(code);
      expect([code, registered?.status]).toEqual([code, spec.status]);
      expect(registered!.statuses.every((s) => s >= 400 && s <= 599)).toBe(true);
      expect(registered!.title).toMatch(/\S/);
    }
    expect(new Set(ERROR_REGISTRY.problems.codes).size).toBe(ERROR_REGISTRY.problems.codes.length);
  });

  it('holds every failure type of every vocabulary with a retry class', () => {
    const declared = [CORE_ERRORS, ...vocabularies.map(([, v]) => v)].flatMap((v) => Object.keys(v.failures));
    expect(declared.length).toBeGreaterThan(40);
    for (const type of declared) expect([type, ERROR_REGISTRY.failures[type]?.retry]).toEqual([type, expect.stringMatching(/^(non-)?retryable$/)]);
  });

  it('every family lists its own vocabulary', () => {
    for (const f of FAMILIES) expect(f.errors.some((v) => Object.keys(v.problems).length > 0)).toBe(true);
  });

  it('problem codes and failure types are upper-case identifiers (they are API and history contracts)', () => {
    for (const code of ERROR_REGISTRY.problems.codes) expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
    for (const type of Object.keys(ERROR_REGISTRY.failures)) expect(type).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });
});

describe('declared twice', () => {
  it('refuses a problem code declared with two statuses, or two titles', () => {
    const a = defineProblems({ SAME: { status: 409, description: 'a' } });
    expect(() => problemRegistry([a, defineProblems({ SAME: { status: 422, description: 'b' } })])).toThrow(/SAME is declared twice/);
    expect(() => problemRegistry([a, defineProblems({ SAME: { status: 409, title: 'Other', description: 'b' } })])).toThrow(/SAME is declared twice/);
    expect(problemRegistry([a, defineProblems({ SAME: { status: 409, description: 'the same answer' } })]).get('SAME')?.status).toBe(409);
  });

  it('refuses a family that re-declares a core code with another status', () => {
    const family = defineErrors({ problems: { NOT_FOUND: { status: 422, description: 'gone' } } });
    expect(() => assembleErrorRegistry([family])).toThrow(/NOT_FOUND is declared twice/);
  });

  it('refuses a failure type declared with two retry classes', () => {
    const a = defineErrors({ failures: { FLAKY: { retry: 'retryable', description: 'a' } } });
    const b = defineErrors({ failures: { FLAKY: { retry: 'non-retryable', description: 'b' } } });
    expect(() => assembleErrorRegistry([a, b])).toThrow(/FLAKY is declared with two retry classes/);
  });

  it('a vocabulary listed by two families counts once', () => {
    expect(() => assembleErrorRegistry([SAN_ERRORS, SAN_ERRORS])).not.toThrow();
  });
});

describe('resolveProblem', () => {
  it('answers the default status and the registered title, or the thrower\'s title', () => {
    expect(resolveProblem(ERROR_REGISTRY.problems, SAN_ERRORS.problem('TIL_NOT_READY', 'x'))).toEqual({ status: 400, title: 'TIL Not Ready' });
    expect(resolveProblem(ERROR_REGISTRY.problems, SAN_ERRORS.problem('NO_CARDS_FOR_DATE'))).toEqual({ status: 422, title: 'No Cards For Date' });
    expect(resolveProblem(ERROR_REGISTRY.problems, SAN_ERRORS.problem('GITHUB_TOKEN_REJECTED', 'x', { title: 'GitHub Token Unreadable' }))).toEqual({
      status: 422,
      title: 'GitHub Token Unreadable',
    });
  });

  it('answers another declared status only when the code declares it', () => {
    const problems = ERROR_REGISTRY.problems;
    expect(resolveProblem(problems, SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', 'x'))?.status).toBe(409);
    expect(resolveProblem(problems, SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', 'x', { status: 503 }))?.status).toBe(503);
    expect(resolveProblem(problems, new DomainError('GITHUB_PATH_UNAVAILABLE', 'x', { status: 418 }))).toBeUndefined();
    expect(resolveProblem(problems, new DomainError('NO_SUCH_CODE', 'x'))).toBeUndefined();
  });

  it('the core registry alone knows the core codes and no family code', () => {
    expect(resolveProblem(CORE_ERROR_REGISTRY.problems, CORE_ERRORS.problem('IDEMPOTENCY_KEY_CONFLICT'))?.status).toBe(409);
    expect(CORE_ERROR_REGISTRY.problems.get('TIL_NOT_READY')).toBeUndefined();
  });
});

describe('the compiler rejects', () => {
  it('a problem without a status, a failure without a retry class, an unknown code, an undeclared status', () => {
    // @ts-expect-error a problem code needs its HTTP status
    defineProblems({ NO_STATUS: { description: 'x' } });
    // @ts-expect-error a failure type needs its retry class
    defineErrors({ failures: { NO_RETRY_CLASS: { description: 'x' } } });
    // @ts-expect-error not a code of the scraps' vocabulary nor of the core's
    expect(SAN_ERRORS.problem('NOT_A_CODE').code).toBe('NOT_A_CODE');
    // @ts-expect-error GITHUB_PATH_UNAVAILABLE answers 409 or 503 only
    expect(SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', 'x', { status: 418 }).status).toBe(418);
    // @ts-expect-error TIL_NOT_READY declares no other status
    expect(SAN_ERRORS.problem('TIL_NOT_READY', 'x', { status: 409 }).status).toBe(409);
  });
});
