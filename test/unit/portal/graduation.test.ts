/**
 * PO-11 the pure graduation progress: retakes count once, credit corrections win, only passed
 * courses earn credits, the most specific rule applies, and each requirement says what is missing.
 */
import { countAttempts, earnedCredits, evaluateGraduation, selectRule, type CourseAttempt, type GraduationRule } from '../../../src/domain/portal/graduation';

const attempt = (over: Partial<CourseAttempt> & Pick<CourseAttempt, 'courseCode'>): CourseAttempt => ({
  courseName: over.courseCode,
  credits: 3,
  creditCorrection: null,
  grade: 'A0',
  area: 'MAJOR_REQUIRED',
  retake: false,
  year: 2023,
  term: '1',
  ...over,
});

const rule = (over: Partial<GraduationRule> = {}): GraduationRule => ({
  id: 'r1',
  name: 'CS',
  kind: 'PRIMARY',
  portalType: 'suwon',
  department: 'Computer Science',
  major: 'Computer Science',
  admissionYearFrom: 2020,
  admissionYearTo: 2023,
  totalCredits: 12,
  areas: [],
  requiredCourses: [],
  languages: [],
  ...over,
});

describe('countAttempts / earnedCredits', () => {
  test('a retake supersedes the earlier attempt of the course: its credits count once', () => {
    const attempts = [
      attempt({ courseCode: 'CS101', grade: 'D0', year: 2022, term: '1' }),
      attempt({ courseCode: 'CS101', grade: 'A+', year: 2023, term: '1', retake: true }),
    ];
    const counted = countAttempts(attempts);
    expect(counted.map((a) => [a.superseded, a.counted])).toEqual([[true, false], [false, true]]);
    expect(earnedCredits(attempts)).toBe(3);
  });

  test('the retake is found by semester order, not input order; SUMMER lies between 1 and 2', () => {
    const attempts = [
      attempt({ courseCode: 'CS101', grade: 'B0', year: 2022, term: '2', retake: true }),
      attempt({ courseCode: 'CS101', grade: 'F', year: 2022, term: 'SUMMER' }),
    ];
    expect(countAttempts(attempts).map((a) => a.superseded)).toEqual([false, true]);
    expect(earnedCredits(attempts)).toBe(3);
  });

  test('a failed retake leaves the course uncounted; attempts of a repeatable course without the flag all count', () => {
    expect(earnedCredits([attempt({ courseCode: 'X', year: 2022 }), attempt({ courseCode: 'X', grade: 'F', retake: true })])).toBe(0);
    expect(earnedCredits([attempt({ courseCode: 'CHAPEL', credits: 0.5, year: 2022 }), attempt({ courseCode: 'CHAPEL', credits: 0.5 })])).toBe(1);
  });

  test('a credit correction wins over the catalogue credits', () => {
    expect(earnedCredits([attempt({ courseCode: 'GE101', credits: 3, creditCorrection: 2 }), attempt({ courseCode: 'GE102', credits: 2, creditCorrection: 0 })])).toBe(2);
  });

  test('F, NP and W earn nothing; P earns; an ungraded course is in progress', () => {
    const c = countAttempts(['F', 'NP', 'W', 'P', null].map((grade, i) => attempt({ courseCode: `C${i}`, grade })));
    expect(c.map((a) => a.counted)).toEqual([false, false, false, true, false]);
    expect(c.map((a) => a.inProgress)).toEqual([false, false, false, false, true]);
  });
});

describe('selectRule', () => {
  const target = { portalType: 'suwon', admissionYear: 2022, department: 'Computer Science', major: 'Computer Science' };

  test('the admission year must lie in the range (inclusive; open end) and the major, portal and kind must match', () => {
    expect(selectRule([rule({ admissionYearTo: 2021 })], 'PRIMARY', target)).toBeNull();
    expect(selectRule([rule({ admissionYearFrom: 2022, admissionYearTo: 2022 })], 'PRIMARY', target)?.id).toBe('r1');
    expect(selectRule([rule({ admissionYearTo: null })], 'PRIMARY', target)?.id).toBe('r1');
    expect(selectRule([rule({ major: 'Mathematics' })], 'PRIMARY', target)).toBeNull();
    expect(selectRule([rule({ portalType: 'other' })], 'PRIMARY', target)).toBeNull();
    expect(selectRule([rule()], 'DOUBLE_MAJOR', target)).toBeNull();
    expect(selectRule([rule({ department: 'Physics' })], 'PRIMARY', target)).toBeNull();
  });

  test('the most specific rule wins: a named department, then the narrower range', () => {
    const rules = [
      rule({ id: 'any-dept', department: null, admissionYearFrom: 2022, admissionYearTo: 2022 }),
      rule({ id: 'wide', admissionYearFrom: 2000, admissionYearTo: null }),
      rule({ id: 'narrow', admissionYearFrom: 2021, admissionYearTo: 2023 }),
    ];
    expect(selectRule(rules, 'PRIMARY', target)?.id).toBe('narrow');
    expect(selectRule(rules.slice(0, 1), 'PRIMARY', target)?.id).toBe('any-dept');
  });
});

describe('evaluateGraduation', () => {
  test('met when every requirement is met', () => {
    const p = evaluateGraduation({
      attempts: [attempt({ courseCode: 'CS101' }), attempt({ courseCode: 'CS102' }), attempt({ courseCode: 'GE1', area: 'GE_CORE' }), attempt({ courseCode: 'GE2', area: 'GE_CORE' })],
      certificates: [{ kind: 'toeic', score: 800, level: null, acquiredOn: '2025-01-01' }],
      primary: rule({
        areas: [{ name: 'Major', areas: ['MAJOR_REQUIRED', 'MAJOR_ELECTIVE'], minCredits: 6 }],
        requiredCourses: [{ courseCode: 'CS101', courseName: 'Programming' }],
        languages: [{ kind: 'TOEIC', minScore: 700, levels: [] }],
      }),
      doubleMajor: null,
    });
    expect(p.met).toBe(true);
    expect(p.creditsEarned).toBe(12);
    expect(p.requirements.map((r) => [r.id, r.met, r.missing])).toEqual([
      ['PRIMARY:TOTAL', true, []],
      ['PRIMARY:AREA:Major', true, []],
      ['PRIMARY:COURSES', true, []],
      ['PRIMARY:LANGUAGE', true, []],
    ]);
  });

  test('names what is missing: credits short per area, a required course, the certificate, the double major', () => {
    const p = evaluateGraduation({
      attempts: [
        attempt({ courseCode: 'CS101', grade: 'F' }),
        attempt({ courseCode: 'GE1', area: 'GE_CORE', creditCorrection: 1.5 }),
        attempt({ courseCode: 'BA101', area: 'DOUBLE_MAJOR_REQUIRED' }),
        attempt({ courseCode: 'CS300', grade: null }),
      ],
      certificates: [{ kind: 'TOEIC', score: 650, level: null, acquiredOn: '2025-01-01' }, { kind: 'OPIc', score: null, level: 'IL', acquiredOn: '2025-01-01' }],
      primary: rule({
        areas: [{ name: 'General education', areas: ['GE_CORE'], minCredits: 3 }],
        requiredCourses: [{ courseCode: 'CS101', courseName: 'Programming' }],
        languages: [{ kind: 'TOEIC', minScore: 700, levels: [] }, { kind: 'OPIc', minScore: null, levels: ['IM2', 'IH'] }],
      }),
      doubleMajor: rule({ id: 'dm', kind: 'DOUBLE_MAJOR', major: 'Business', totalCredits: null, areas: [{ name: 'Double major', areas: ['DOUBLE_MAJOR_REQUIRED', 'DOUBLE_MAJOR_ELECTIVE'], minCredits: 9 }] }),
    });
    expect(p.met).toBe(false);
    expect(p.creditsEarned).toBe(4.5);
    expect(p.creditsInProgress).toBe(3);
    const byId = Object.fromEntries(p.requirements.map((r) => [r.id, r]));
    expect(byId['PRIMARY:TOTAL']).toMatchObject({ met: false, required: 12, earned: 4.5, missing: [{ type: 'CREDITS_SHORT', credits: 7.5 }] });
    expect(byId['PRIMARY:AREA:General education']).toMatchObject({ met: false, earned: 1.5, missing: [{ type: 'CREDITS_SHORT', credits: 1.5 }] });
    expect(byId['PRIMARY:COURSES']).toMatchObject({ met: false, missing: [{ type: 'COURSE_MISSING', courseCode: 'CS101', courseName: 'Programming' }] });
    expect(byId['PRIMARY:LANGUAGE']).toMatchObject({ met: false, missing: [{ type: 'CERTIFICATE_MISSING' }] });
    expect(byId['DOUBLE_MAJOR:AREA:Double major']).toMatchObject({ scope: 'DOUBLE_MAJOR', met: false, earned: 3, missing: [{ type: 'CREDITS_SHORT', credits: 6 }] });
    expect(p.rules).toEqual({ primary: { id: 'r1', name: 'CS' }, doubleMajor: { id: 'dm', name: 'CS' } });
  });

  test('a certificate meets the requirement by level when levels are listed', () => {
    const p = evaluateGraduation({
      attempts: [],
      certificates: [{ kind: 'OPIc', score: null, level: 'IM2', acquiredOn: '2025-01-01' }],
      primary: rule({ totalCredits: null, languages: [{ kind: 'OPIc', minScore: null, levels: ['IM2', 'IH'] }] }),
      doubleMajor: null,
    });
    expect(p.requirements).toEqual([expect.objectContaining({ id: 'PRIMARY:LANGUAGE', met: true })]);
  });
});
