/**
 * PO-11 reference names of the `suwon` portal's university: its departments and majors as the
 * portal spells them. The portal emulator's seed (test/support/portal-seed.ts) and the graduation
 * rules seed both use these, so a rule always targets a department and major the scraper can
 * report. The real portal's catalogue is not available here; these names are the emulator's.
 * Pure data, workflow-safe.
 */

/** University, departments and majors (Korean, as shown on the portal). */
export const SUWON_UNIVERSITY = {
  portalType: 'suwon',
  name: '수원대학교',
  departments: {
    computer: { name: '컴퓨터학부', majors: { software: '컴퓨터SW', security: '정보보호' } },
    business: { name: '경영학부', majors: { management: '경영학' } },
    electronics: { name: '전자재료공학부', majors: { electronics: '전자공학' } },
  },
  /** Language certificates the portal records (PO-11 language requirement). */
  languageCertificates: { toeic: 'TOEIC', toefl: 'TOEFL', opic: 'OPIc' },
} as const;

/** Department names of {@link SUWON_UNIVERSITY}. */
export const SUWON_DEPARTMENT_NAMES: readonly string[] = Object.values(SUWON_UNIVERSITY.departments).map((d) => d.name);

/** Every (department, major) pair of {@link SUWON_UNIVERSITY}. */
export const SUWON_MAJORS: ReadonlyArray<{ department: string; major: string }> = Object.values(SUWON_UNIVERSITY.departments).flatMap((d) =>
  Object.values(d.majors).map((major: string) => ({ department: d.name, major })),
);
