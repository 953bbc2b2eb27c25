/**
 * PO-11 the graduation rules of the `suwon` portal's university, as data for
 * {@link applyGraduationRules}: one PRIMARY rule per department and major (컴퓨터SW split by
 * admission year: 2020-2023 and 2024 on), and DOUBLE_MAJOR rules for the majors a student may
 * take as a double major. Department and major names come from src/domain/portal/suwon-university.ts,
 * which the portal emulator's seed uses too. The real university's rules are not available here:
 * these are plausible figures for the demo and the tests. `seedSuwonGraduationRules` is idempotent.
 */
import type { PrismaClient } from '@prisma/client';
import { SUWON_UNIVERSITY } from '../../domain/portal/suwon-university';
import { applyGraduationRules, type GraduationRulesDocumentInput } from './graduation-rules';

const D = SUWON_UNIVERSITY.departments;
const L = SUWON_UNIVERSITY.languageCertificates;

/** Accepted language certificates (any one): TOEIC 700, TOEFL iBT 80, OPIc IM2 or above. */
const LANGUAGES = [
  { kind: L.toeic, minScore: 700 },
  { kind: L.toefl, minScore: 80 },
  { kind: L.opic, levels: ['IM2', 'IM3', 'IH', 'AL'] },
];

/** General-education areas every primary rule shares. */
const GENERAL = [
  { name: '교양필수', areas: ['GE_REQUIRED' as const], minCredits: 7 },
  { name: '교양', areas: ['GE_REQUIRED' as const, 'GE_CORE' as const, 'GE_ELECTIVE' as const], minCredits: 30 },
];

const major = (min: number, required: number) => [
  { name: '전공', areas: ['MAJOR_REQUIRED' as const, 'MAJOR_ELECTIVE' as const], minCredits: min },
  { name: '전공필수', areas: ['MAJOR_REQUIRED' as const], minCredits: required },
];

const doubleMajor = (min: number, required: number) => [
  { name: '복수전공', areas: ['DOUBLE_MAJOR_REQUIRED' as const, 'DOUBLE_MAJOR_ELECTIVE' as const], minCredits: min },
  { name: '복수전공필수', areas: ['DOUBLE_MAJOR_REQUIRED' as const], minCredits: required },
];

/** The suwon rules document. */
export const SUWON_GRADUATION_RULES: GraduationRulesDocumentInput = {
  portalType: SUWON_UNIVERSITY.portalType,
  rules: [
    {
      kind: 'PRIMARY',
      name: `${D.computer.majors.software} 2020-2023`,
      department: D.computer.name,
      major: D.computer.majors.software,
      admissionYearFrom: 2020,
      admissionYearTo: 2023,
      totalCredits: 130,
      areas: [...GENERAL, ...major(66, 21)],
      requiredCourses: [
        { courseCode: 'CSE201', courseName: '자료구조' },
        { courseCode: 'CSE401', courseName: '캡스톤디자인' },
      ],
      languages: LANGUAGES,
    },
    {
      kind: 'PRIMARY',
      name: `${D.computer.majors.software} 2024-`,
      department: D.computer.name,
      major: D.computer.majors.software,
      admissionYearFrom: 2024,
      totalCredits: 128,
      areas: [...GENERAL, ...major(63, 21)],
      requiredCourses: [
        { courseCode: 'CSE201', courseName: '자료구조' },
        { courseCode: 'CSE401', courseName: '캡스톤디자인' },
      ],
      languages: LANGUAGES,
    },
    {
      kind: 'PRIMARY',
      name: `${D.computer.majors.security} 2020-`,
      department: D.computer.name,
      major: D.computer.majors.security,
      admissionYearFrom: 2020,
      totalCredits: 130,
      areas: [...GENERAL, ...major(66, 18)],
      requiredCourses: [{ courseCode: 'CSE304', courseName: '정보보호개론' }],
      languages: LANGUAGES,
    },
    {
      kind: 'PRIMARY',
      name: `${D.business.majors.management} 2018-`,
      department: D.business.name,
      major: D.business.majors.management,
      admissionYearFrom: 2018,
      totalCredits: 126,
      areas: [...GENERAL, ...major(48, 12)],
      requiredCourses: [{ courseCode: 'BUS101', courseName: '경영학원론' }],
      languages: LANGUAGES,
    },
    {
      kind: 'PRIMARY',
      name: `${D.electronics.majors.electronics} 2018-`,
      department: D.electronics.name,
      major: D.electronics.majors.electronics,
      admissionYearFrom: 2018,
      totalCredits: 133,
      areas: [...GENERAL, ...major(69, 24)],
      requiredCourses: [{ courseCode: 'ELE101', courseName: '회로이론' }],
      languages: LANGUAGES,
    },
    {
      kind: 'DOUBLE_MAJOR',
      name: `${D.computer.majors.software} 복수전공`,
      major: D.computer.majors.software,
      admissionYearFrom: 2018,
      areas: doubleMajor(36, 15),
      requiredCourses: [{ courseCode: 'CSE101', courseName: '프로그래밍기초' }],
    },
    {
      kind: 'DOUBLE_MAJOR',
      name: `${D.business.majors.management} 복수전공`,
      major: D.business.majors.management,
      admissionYearFrom: 2018,
      areas: doubleMajor(36, 12),
    },
  ],
};

/** Writes {@link SUWON_GRADUATION_RULES} (idempotent; see applyGraduationRules). Returns the rule ids by name. */
export function seedSuwonGraduationRules(db: PrismaClient): Promise<Record<string, string>> {
  return applyGraduationRules(db, SUWON_GRADUATION_RULES);
}
