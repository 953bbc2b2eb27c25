/**
 * Seed of the portal emulator (test/support/portal-emulator.ts): the `suwon` university's students
 * with records that exercise the graduation rules (PO-9, PO-11, PO-12): a retaken course, a credit
 * correction, a double major, a missing language certificate, designated courses present (with a
 * duplicate) / empty / absent, course evaluations of the target semester. Plain data in the shape
 * of the scrape result, so a test can compare what the scraper read with what the portal holds.
 * Department and major names come from src/domain/portal/suwon-university.ts (the rules seed uses them too).
 */
import type { CourseArea, DesignatedCourse, EvaluationStatus, Semester, SemesterRef, StudentProfile, TakenCourse } from '../../src/domain/portal/result';
import { SUWON_UNIVERSITY } from '../../src/domain/portal/suwon-university';

export { SUWON_UNIVERSITY, SUWON_DEPARTMENT_NAMES, SUWON_MAJORS } from '../../src/domain/portal/suwon-university';

const D = SUWON_UNIVERSITY.departments;

/** The portal's target semester for course evaluations (the current one). */
export const TARGET_SEMESTER: SemesterRef = { year: 2026, term: '2' };

/** One student of the emulated portal. */
export interface SeedStudent {
  studentId: string;
  password: string;
  profile: StudentProfile;
  semesters: Semester[];
  /** `'unavailable'`: the portal shows no designated-course list at all (the result omits the key, PO-9). */
  designatedCourses: DesignatedCourse[] | 'unavailable';
  /** null: the portal has no evaluation period open (the result's courseEvaluations is null). */
  courseEvaluations: { targetSemester: SemesterRef; items: Array<{ courseCode: string; status: EvaluationStatus }> } | null;
}

interface CatalogCourse {
  name: string;
  credits: number;
  area: CourseArea;
  professor: string | null;
  department: string | null;
}

/** Course catalogue: code → name, catalogue credits, default area, professor, offering department. */
export const COURSE_CATALOG: Readonly<Record<string, CatalogCourse>> = {
  GEN101: { name: '글쓰기와 의사소통', credits: 3, area: 'GE_REQUIRED', professor: '한지민', department: '교양대학' },
  GEN102: { name: '영어회화1', credits: 2, area: 'GE_REQUIRED', professor: 'John Park', department: '교양대학' },
  GEN103: { name: '영어회화2', credits: 2, area: 'GE_REQUIRED', professor: 'John Park', department: '교양대학' },
  GEN201: { name: '철학의 이해', credits: 3, area: 'GE_CORE', professor: '오세훈', department: '교양대학' },
  GEN202: { name: '현대사회와 윤리', credits: 3, area: 'GE_CORE', professor: '정유나', department: '교양대학' },
  GEN203: { name: '과학기술과 문명', credits: 3, area: 'GE_CORE', professor: '배성우', department: '교양대학' },
  GEN301: { name: '음악의 이해', credits: 2, area: 'GE_ELECTIVE', professor: '윤하늘', department: '교양대학' },
  GEN302: { name: '생활체육(배드민턴)', credits: 1, area: 'GE_ELECTIVE', professor: null, department: '교양대학' },
  CSE101: { name: '프로그래밍기초', credits: 3, area: 'MAJOR_REQUIRED', professor: '김철수', department: D.computer.name },
  CSE102: { name: '이산수학', credits: 3, area: 'MAJOR_REQUIRED', professor: '이영희', department: D.computer.name },
  CSE201: { name: '자료구조', credits: 3, area: 'MAJOR_REQUIRED', professor: '김철수', department: D.computer.name },
  CSE202: { name: '컴퓨터구조', credits: 3, area: 'MAJOR_REQUIRED', professor: '박준영', department: D.computer.name },
  CSE203: { name: '객체지향프로그래밍', credits: 3, area: 'MAJOR_ELECTIVE', professor: '최민호', department: D.computer.name },
  CSE301: { name: '운영체제', credits: 3, area: 'MAJOR_REQUIRED', professor: '박준영', department: D.computer.name },
  CSE302: { name: '데이터베이스', credits: 3, area: 'MAJOR_ELECTIVE', professor: '이영희', department: D.computer.name },
  CSE303: { name: '컴퓨터네트워크', credits: 3, area: 'MAJOR_ELECTIVE', professor: '최민호', department: D.computer.name },
  CSE304: { name: '정보보호개론', credits: 3, area: 'MAJOR_ELECTIVE', professor: '장보안', department: D.computer.name },
  CSE401: { name: '캡스톤디자인', credits: 3, area: 'MAJOR_REQUIRED', professor: '김철수', department: D.computer.name },
  CSE402: { name: '소프트웨어공학', credits: 3, area: 'MAJOR_ELECTIVE', professor: '최민호', department: D.computer.name },
  BUS101: { name: '경영학원론', credits: 3, area: 'MAJOR_REQUIRED', professor: '문경영', department: D.business.name },
  BUS102: { name: '회계원리', credits: 3, area: 'MAJOR_REQUIRED', professor: '서회계', department: D.business.name },
  BUS201: { name: '마케팅관리', credits: 3, area: 'MAJOR_ELECTIVE', professor: '문경영', department: D.business.name },
  BUS202: { name: '재무관리', credits: 3, area: 'MAJOR_REQUIRED', professor: '서회계', department: D.business.name },
  BUS301: { name: '인사관리', credits: 3, area: 'MAJOR_ELECTIVE', professor: '강인사', department: D.business.name },
  ELE101: { name: '회로이론', credits: 3, area: 'MAJOR_REQUIRED', professor: '전기현', department: D.electronics.name },
  ELE102: { name: '전자기학', credits: 3, area: 'MAJOR_REQUIRED', professor: '전기현', department: D.electronics.name },
  ELE201: { name: '반도체소자', credits: 3, area: 'MAJOR_ELECTIVE', professor: '노반도', department: D.electronics.name },
  FRE101: { name: '창업과 진로', credits: 2, area: 'FREE_ELECTIVE', professor: '유창업', department: '교양대학' },
};

type Grade = TakenCourse['grade'];
type Entry = [code: string, grade: Grade, opts?: { area?: CourseArea; creditCorrection?: number; retake?: boolean }];

function course([code, grade, opts = {}]: Entry): TakenCourse {
  const c = COURSE_CATALOG[code];
  if (!c) throw new Error(`portal seed: unknown course ${code}`);
  return {
    courseCode: code,
    courseName: c.name,
    credits: c.credits,
    creditCorrection: opts.creditCorrection ?? null,
    grade,
    area: opts.area ?? c.area,
    professor: c.professor,
    department: c.department,
    retake: opts.retake ?? false,
  };
}

const POINTS: Record<string, number> = { 'A+': 4.5, A0: 4.0, 'A-': 3.7, 'B+': 3.5, B0: 3.0, 'B-': 2.7, 'C+': 2.5, C0: 2.0, 'C-': 1.7, 'D+': 1.5, D0: 1.0, 'D-': 0.7, F: 0 };

/** Semester GPA as the portal computes it: credit-weighted over letter grades (P/NP/W and ungraded left out), 2 decimals. */
export function semesterGpa(courses: readonly TakenCourse[]): number | null {
  let points = 0;
  let credits = 0;
  for (const c of courses) {
    if (c.grade === null || !(c.grade in POINTS)) continue;
    const cr = c.creditCorrection ?? c.credits;
    points += POINTS[c.grade]! * cr;
    credits += cr;
  }
  return credits === 0 ? null : Math.round((points / credits) * 100) / 100;
}

function semester(year: number, term: SemesterRef['term'], entries: Entry[]): Semester {
  const courses = entries.map(course);
  return { year, term, gpa: semesterGpa(courses), courses };
}

function designated(code: string): DesignatedCourse {
  const c = COURSE_CATALOG[code]!;
  return { courseCode: code, courseName: c.name, credits: c.credits, area: c.area, department: c.department };
}

/**
 * 20201001 김민수, 컴퓨터학부/컴퓨터SW, 2020: CSE201 failed in 2020-2 and retaken in 2021-1, a credit
 * correction on CSE302 (3 → 2), TOEIC on record, designated courses with a duplicate, evaluations open.
 */
const kimMinsu: SeedStudent = {
  studentId: '20201001',
  password: 'minsu-pass-1!',
  profile: {
    studentId: '20201001',
    name: '김민수',
    admissionYear: 2020,
    department: D.computer.name,
    major: D.computer.majors.software,
    doubleMajor: null,
    enrollmentStatus: '재학',
    gradeLevel: 4,
    languageCertificates: [{ kind: SUWON_UNIVERSITY.languageCertificates.toeic, score: 785, level: null, acquiredOn: '2024-08-17' }],
  },
  semesters: [
    semester(2020, '1', [['GEN101', 'A0'], ['GEN102', 'B+'], ['CSE101', 'A+'], ['CSE102', 'B0'], ['GEN302', 'P']]),
    semester(2020, '2', [['GEN103', 'B0'], ['GEN201', 'A-'], ['CSE201', 'F'], ['CSE203', 'B+']]),
    semester(2021, '1', [['CSE201', 'B+', { retake: true }], ['CSE202', 'B0'], ['GEN202', 'A0'], ['FRE101', 'P']]),
    semester(2024, '1', [['CSE301', 'A-'], ['CSE302', 'A0', { creditCorrection: 2 }], ['GEN301', 'B+']]),
    semester(2024, '2', [['CSE303', 'B+'], ['CSE304', 'A+'], ['GEN203', 'W']]),
    semester(2026, '2', [['CSE401', null], ['CSE402', null]]),
  ],
  designatedCourses: [designated('CSE401'), designated('GEN203'), designated('CSE401')],
  courseEvaluations: {
    targetSemester: TARGET_SEMESTER,
    items: [
      { courseCode: 'CSE401', status: 'PENDING' },
      { courseCode: 'CSE402', status: 'COMPLETED' },
    ],
  },
};

/**
 * 20211002 이서연, 경영학부/경영학 with a double major 컴퓨터SW, 2021: no language certificate,
 * an empty designated-course list, one evaluation skipped and one not released.
 */
const leeSeoyeon: SeedStudent = {
  studentId: '20211002',
  password: 'seoyeon-pass-2!',
  profile: {
    studentId: '20211002',
    name: '이서연',
    admissionYear: 2021,
    department: D.business.name,
    major: D.business.majors.management,
    doubleMajor: D.computer.majors.software,
    enrollmentStatus: '재학',
    gradeLevel: 3,
    languageCertificates: [],
  },
  semesters: [
    semester(2021, '1', [['GEN101', 'B+'], ['GEN102', 'A0'], ['BUS101', 'A0'], ['BUS102', 'B+']]),
    semester(2021, '2', [['GEN103', 'A-'], ['BUS201', 'B0'], ['BUS202', 'C+'], ['GEN201', 'B+']]),
    semester(2022, 'SUMMER', [['GEN302', 'P']]),
    semester(2025, '1', [['CSE101', 'A0', { area: 'DOUBLE_MAJOR_REQUIRED' }], ['CSE102', 'B+', { area: 'DOUBLE_MAJOR_REQUIRED' }], ['BUS301', 'A-']]),
    semester(2026, '2', [['CSE203', null, { area: 'DOUBLE_MAJOR_ELECTIVE' }], ['CSE201', null, { area: 'DOUBLE_MAJOR_REQUIRED' }]]),
  ],
  designatedCourses: [],
  courseEvaluations: {
    targetSemester: TARGET_SEMESTER,
    items: [
      { courseCode: 'CSE203', status: 'SKIPPED' },
      { courseCode: 'CSE201', status: 'NOT_RELEASED' },
    ],
  },
};

/**
 * 20221003 박지훈, 전자재료공학부/전자공학, 2022, on leave: no designated-course list on the portal
 * (absent), no evaluation period (none), an OPIc level certificate.
 */
const parkJihoon: SeedStudent = {
  studentId: '20221003',
  password: 'jihoon-pass-3!',
  profile: {
    studentId: '20221003',
    name: '박지훈',
    admissionYear: 2022,
    department: D.electronics.name,
    major: D.electronics.majors.electronics,
    doubleMajor: null,
    enrollmentStatus: '휴학',
    gradeLevel: 2,
    languageCertificates: [{ kind: SUWON_UNIVERSITY.languageCertificates.opic, score: null, level: 'IM2', acquiredOn: '2023-02-04' }],
  },
  semesters: [
    semester(2022, '1', [['GEN101', 'C+'], ['ELE101', 'B0'], ['ELE102', 'B-']]),
    semester(2022, '2', [['GEN102', 'B0'], ['ELE201', 'A-'], ['GEN202', 'NP']]),
    semester(2023, 'WINTER', [['GEN301', 'A+']]),
  ],
  designatedCourses: 'unavailable',
  courseEvaluations: null,
};

/** 20261004 최유진, 컴퓨터학부/정보보호, 2026 freshman: one graded semester, one in progress. */
const choiYujin: SeedStudent = {
  studentId: '20261004',
  password: 'yujin-pass-4!',
  profile: {
    studentId: '20261004',
    name: '최유진',
    admissionYear: 2026,
    department: D.computer.name,
    major: D.computer.majors.security,
    doubleMajor: null,
    enrollmentStatus: '재학',
    gradeLevel: 1,
    languageCertificates: [{ kind: SUWON_UNIVERSITY.languageCertificates.toefl, score: 96, level: null, acquiredOn: '2025-11-08' }],
  },
  semesters: [
    semester(2026, '1', [['GEN101', 'A+'], ['GEN102', 'A0'], ['CSE101', 'A0'], ['CSE102', 'A-']]),
    semester(2026, '2', [['GEN103', null], ['CSE201', null], ['CSE304', null]]),
  ],
  designatedCourses: [designated('CSE304')],
  courseEvaluations: {
    targetSemester: TARGET_SEMESTER,
    items: [
      { courseCode: 'GEN103', status: 'PENDING' },
      { courseCode: 'CSE201', status: 'PENDING' },
      { courseCode: 'CSE304', status: 'COMPLETED' },
    ],
  },
};

/** Every seeded student, keyed by student id. */
export const SEED_STUDENTS: Readonly<Record<string, SeedStudent>> = Object.fromEntries(
  [kimMinsu, leeSeoyeon, parkJihoon, choiYujin].map((s) => [s.studentId, s]),
);

/** The seeded students by role in the tests and the demo. */
export const SEEDED = {
  /** Retake + credit correction + designated courses with a duplicate + certificate. */
  retakeAndCorrection: kimMinsu,
  /** Double major, missing language certificate, designated courses []. */
  doubleMajorNoCertificate: leeSeoyeon,
  /** Designated courses absent, no evaluation period. */
  designatedAbsent: parkJihoon,
  /** Freshman, designated courses present. */
  freshman: choiYujin,
} as const;

/** Academic record totals as the portal states them: attempted (W excluded), earned (passing), GPA over letter grades. */
export function recordTotals(semesters: readonly Semester[]): { creditsAttempted: number; creditsEarned: number; gpa: number | null } {
  let attempted = 0;
  let earned = 0;
  const graded: TakenCourse[] = [];
  for (const s of semesters) {
    for (const c of s.courses) {
      if (c.grade === null || c.grade === 'W') continue;
      const cr = c.creditCorrection ?? c.credits;
      attempted += cr;
      if (c.grade !== 'F' && c.grade !== 'NP') earned += cr;
      graded.push(c);
    }
  }
  return { creditsAttempted: attempted, creditsEarned: earned, gpa: semesterGpa(graded) };
}

/** A deep copy (the emulator's state is mutable through its admin API; the seed never changes). */
export function cloneStudent(s: SeedStudent): SeedStudent {
  return structuredClone(s);
}

/**
 * What a correct scraper reads for `s` (camelCase, without `scrapedAt`): the profile, the portal's
 * record totals, every semester, designated courses (omitted when the portal shows none) and the
 * course evaluations.
 */
export function expectedScrape(s: SeedStudent): Record<string, unknown> {
  return {
    schemaVersion: 1,
    portalType: SUWON_UNIVERSITY.portalType,
    profile: s.profile,
    academicRecord: recordTotals(s.semesters),
    semesters: s.semesters,
    ...(s.designatedCourses === 'unavailable' ? {} : { designatedCourses: s.designatedCourses }),
    courseEvaluations: s.courseEvaluations,
  };
}
