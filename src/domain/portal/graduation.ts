/**
 * PO-11 graduation progress, pure: which of a student's courses count (a retake supersedes the
 * earlier attempts of the course, a credit correction wins over the catalogue credits, only passed
 * courses earn credits), which rule applies to the student (portal type, kind, admission year,
 * department, major), and met / not met per requirement with what is missing (credits short,
 * courses missing, certificate missing). Designated courses never enter here (PO-9). No I/O.
 */
import type { CourseArea, LanguageCertificate, Term } from './result';

/** Chronological rank of a term within a year: 1 < SUMMER < 2 < WINTER. */
export const TERM_ORDER: Readonly<Record<Term, number>> = { '1': 1, SUMMER: 2, '2': 3, WINTER: 4 };

/** Grades that earn no credit: failed, non-pass, withdrawn. A null grade is not graded yet (in progress). */
export const NON_PASSING_GRADES: ReadonlySet<string> = new Set(['F', 'NP', 'W']);

/** One attempt of a course as stored in student_courses (credits in credit units). */
export interface CourseAttempt {
  courseCode: string;
  courseName: string;
  /** Catalogue credits as taken. */
  credits: number;
  /** The university's correction for this student; wins over `credits` when not null. */
  creditCorrection: number | null;
  grade: string | null;
  area: CourseArea;
  /** This attempt retakes the course: every earlier attempt of the same code stops counting. */
  retake: boolean;
  year: number;
  term: Term;
}

/** An attempt with its verdict. */
export interface CountedAttempt extends CourseAttempt {
  /** Credits this attempt is worth (correction or catalogue). */
  effectiveCredits: number;
  /** A later retake of the course replaced it. */
  superseded: boolean;
  /** Not superseded and passed: its credits count. */
  counted: boolean;
  /** Not superseded and not graded yet. */
  inProgress: boolean;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The verdict on each attempt, in the input's order. An attempt is superseded when a later
 * attempt (by semester; same semester: later in the input) of the same course code is a retake;
 * attempts of a repeatable course without the retake flag all count.
 */
export function countAttempts(attempts: readonly CourseAttempt[]): CountedAttempt[] {
  const rank = (a: CourseAttempt, i: number) => [a.year, TERM_ORDER[a.term], i] as const;
  const later = (x: readonly number[], y: readonly number[]) => x[0]! > y[0]! || (x[0] === y[0] && (x[1]! > y[1]! || (x[1] === y[1] && x[2]! > y[2]!)));
  const ranks = attempts.map(rank);
  return attempts.map((a, i) => {
    const superseded = attempts.some((b, j) => j !== i && b.retake && b.courseCode === a.courseCode && later(ranks[j]!, ranks[i]!));
    const graded = a.grade !== null;
    const passed = graded && !NON_PASSING_GRADES.has(a.grade!);
    return {
      ...a,
      effectiveCredits: a.creditCorrection ?? a.credits,
      superseded,
      counted: !superseded && passed,
      inProgress: !superseded && !graded,
    };
  });
}

/** Credits earned: the sum of the counted attempts' effective credits (the summary's creditsEarned). */
export function earnedCredits(attempts: readonly CourseAttempt[]): number {
  return round(countAttempts(attempts).reduce((s, a) => s + (a.counted ? a.effectiveCredits : 0), 0));
}

/** A minimum of credits over one or more areas. */
export interface AreaRequirement {
  name: string;
  areas: readonly CourseArea[];
  minCredits: number;
}

/** One accepted language certificate: kind (case-insensitive), a minimum score, accepted levels (empty: any). */
export interface LanguageRequirement {
  kind: string;
  minScore: number | null;
  levels: readonly string[];
}

/** Kind of a rule: the student's major, or the extra rule of a double major. */
export type GraduationRuleKind = 'PRIMARY' | 'DOUBLE_MAJOR';

/** A graduation rule as data (graduation_rules and its child tables). */
export interface GraduationRule {
  id: string;
  name: string;
  kind: GraduationRuleKind;
  portalType: string;
  /** null: any department. */
  department: string | null;
  major: string;
  admissionYearFrom: number;
  /** Inclusive; null: open-ended. */
  admissionYearTo: number | null;
  /** null: no total requirement of its own. */
  totalCredits: number | null;
  areas: readonly AreaRequirement[];
  requiredCourses: readonly { courseCode: string; courseName: string }[];
  /** Any one entry meets the language requirement; empty: no language requirement. */
  languages: readonly LanguageRequirement[];
}

/** What a rule is chosen by. */
export interface RuleTarget {
  portalType: string;
  admissionYear: number;
  department: string;
  /** The major (PRIMARY) or the double major (DOUBLE_MAJOR). */
  major: string;
}

/**
 * The rule of `kind` that applies to `target`, or null: same portal type, kind and major,
 * the admission year within the range, the department equal or the rule's null. The most specific
 * wins: a named department over any department, then the narrower year range, then the later start,
 * then the id (deterministic).
 */
export function selectRule(rules: readonly GraduationRule[], kind: GraduationRuleKind, target: RuleTarget): GraduationRule | null {
  const fits = rules.filter(
    (r) =>
      r.kind === kind &&
      r.portalType === target.portalType &&
      r.major === target.major &&
      (r.department === null || r.department === target.department) &&
      r.admissionYearFrom <= target.admissionYear &&
      (r.admissionYearTo === null || target.admissionYear <= r.admissionYearTo),
  );
  const span = (r: GraduationRule) => (r.admissionYearTo ?? Number.MAX_SAFE_INTEGER) - r.admissionYearFrom;
  fits.sort(
    (a, b) =>
      Number(b.department !== null) - Number(a.department !== null) ||
      span(a) - span(b) ||
      b.admissionYearFrom - a.admissionYearFrom ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return fits[0] ?? null;
}

/** One missing item of a requirement. */
export type MissingItem =
  | { type: 'CREDITS_SHORT'; credits: number }
  | { type: 'COURSE_MISSING'; courseCode: string; courseName: string }
  | { type: 'CERTIFICATE_MISSING'; accepted: Array<{ kind: string; minScore: number | null; levels: string[] }> };

/** Kinds of requirement. */
export type RequirementKind = 'TOTAL_CREDITS' | 'AREA_CREDITS' | 'REQUIRED_COURSES' | 'LANGUAGE';

/** One requirement's verdict. `required`/`earned` are credits (credit requirements only). */
export interface RequirementResult {
  /** Stable id within the answer, e.g. `PRIMARY:AREA:Major`. */
  id: string;
  kind: RequirementKind;
  scope: GraduationRuleKind;
  name: string;
  met: boolean;
  required: number | null;
  earned: number | null;
  missing: MissingItem[];
}

/** PO-11 the graduation progress of a student. */
export interface GraduationProgress {
  met: boolean;
  creditsEarned: number;
  /** Credits of courses not graded yet (not counted). */
  creditsInProgress: number;
  rules: { primary: { id: string; name: string }; doubleMajor: { id: string; name: string } | null };
  requirements: RequirementResult[];
}

function certificateMeets(c: LanguageCertificate, r: LanguageRequirement): boolean {
  if (c.kind.trim().toLowerCase() !== r.kind.trim().toLowerCase()) return false;
  if (r.minScore !== null && (c.score === null || c.score < r.minScore)) return false;
  if (r.levels.length > 0 && (c.level === null || !r.levels.includes(c.level))) return false;
  return true;
}

function ruleRequirements(rule: GraduationRule, counted: readonly CountedAttempt[], certs: readonly LanguageCertificate[]): RequirementResult[] {
  const scope = rule.kind;
  const out: RequirementResult[] = [];
  const creditReq = (id: string, kind: RequirementKind, name: string, required: number, earned: number): RequirementResult => {
    const short = round(Math.max(0, required - earned));
    return { id, kind, scope, name, met: short === 0, required, earned: round(earned), missing: short > 0 ? [{ type: 'CREDITS_SHORT', credits: short }] : [] };
  };
  const passed = counted.filter((a) => a.counted);
  if (rule.totalCredits !== null) {
    out.push(creditReq(`${scope}:TOTAL`, 'TOTAL_CREDITS', 'Total credits', rule.totalCredits, passed.reduce((s, a) => s + a.effectiveCredits, 0)));
  }
  for (const area of rule.areas) {
    const earned = passed.filter((a) => area.areas.includes(a.area)).reduce((s, a) => s + a.effectiveCredits, 0);
    out.push(creditReq(`${scope}:AREA:${area.name}`, 'AREA_CREDITS', area.name, area.minCredits, earned));
  }
  if (rule.requiredCourses.length > 0) {
    const done = new Set(passed.map((a) => a.courseCode));
    const missing: MissingItem[] = rule.requiredCourses
      .filter((c) => !done.has(c.courseCode))
      .map((c) => ({ type: 'COURSE_MISSING', courseCode: c.courseCode, courseName: c.courseName }));
    out.push({ id: `${scope}:COURSES`, kind: 'REQUIRED_COURSES', scope, name: 'Required courses', met: missing.length === 0, required: null, earned: null, missing });
  }
  if (rule.languages.length > 0) {
    const met = certs.some((c) => rule.languages.some((r) => certificateMeets(c, r)));
    out.push({
      id: `${scope}:LANGUAGE`,
      kind: 'LANGUAGE',
      scope,
      name: 'Language certificate',
      met,
      required: null,
      earned: null,
      missing: met ? [] : [{ type: 'CERTIFICATE_MISSING', accepted: rule.languages.map((l) => ({ kind: l.kind, minScore: l.minScore, levels: [...l.levels] })) }],
    });
  }
  return out;
}

/** Input of {@link evaluateGraduation}. */
export interface GraduationInput {
  attempts: readonly CourseAttempt[];
  certificates: readonly LanguageCertificate[];
  primary: GraduationRule;
  /** The double major's rule; null when the student has no double major. */
  doubleMajor: GraduationRule | null;
}

/**
 * Met / not met per requirement of the primary rule (total, areas, required courses,
 * language) and of the double major's rule, with the missing items; `met` when all are met.
 */
export function evaluateGraduation(input: GraduationInput): GraduationProgress {
  const counted = countAttempts(input.attempts);
  const requirements = [
    ...ruleRequirements(input.primary, counted, input.certificates),
    ...(input.doubleMajor ? ruleRequirements(input.doubleMajor, counted, input.certificates) : []),
  ];
  return {
    met: requirements.every((r) => r.met),
    creditsEarned: round(counted.reduce((s, a) => s + (a.counted ? a.effectiveCredits : 0), 0)),
    creditsInProgress: round(counted.reduce((s, a) => s + (a.inProgress ? a.effectiveCredits : 0), 0)),
    rules: {
      primary: { id: input.primary.id, name: input.primary.name },
      doubleMajor: input.doubleMajor ? { id: input.doubleMajor.id, name: input.doubleMajor.name } : null,
    },
    requirements,
  };
}
