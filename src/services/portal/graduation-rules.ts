/**
 * PO-11 graduation rules as data: the document format (zod), an idempotent loader that writes a
 * document into graduation_rules and its child tables (the demo, the tests and
 * `npm run portal:graduation-rules -- <file.json>` call it), and the reader the progress service uses.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import { z } from 'zod';
import type { GraduationRule } from '../../domain/portal/graduation';
import { CourseAreaSchema } from '../../domain/portal/result';

const name = z.string().trim().min(1).max(200);
const credits = z.number().min(0).max(1000);

/** One rule of a {@link GraduationRulesDocument}. `name` identifies it within portal type + kind. */
export const GraduationRuleInputSchema = z.object({
  kind: z.enum(['PRIMARY', 'DOUBLE_MAJOR']),
  name,
  department: name.nullable().default(null),
  major: name,
  admissionYearFrom: z.number().int().min(1950).max(2200),
  admissionYearTo: z.number().int().min(1950).max(2200).nullable().default(null),
  totalCredits: credits.nullable().default(null),
  areas: z.array(z.object({ name, areas: z.array(CourseAreaSchema).min(1), minCredits: credits })).default([]),
  requiredCourses: z.array(z.object({ courseCode: z.string().trim().min(1).max(40), courseName: name })).default([]),
  languages: z
    .array(z.object({ kind: z.string().trim().min(1).max(40), minScore: z.number().min(0).nullable().default(null), levels: z.array(z.string().min(1).max(40)).default([]) }))
    .default([]),
}).refine((r) => r.admissionYearTo === null || r.admissionYearTo >= r.admissionYearFrom, { message: 'admissionYearTo must not be before admissionYearFrom', path: ['admissionYearTo'] });

/** A rules document: every rule of one university (portal type). */
export const GraduationRulesDocumentSchema = z.object({
  portalType: z.string().trim().min(1).max(40),
  rules: z.array(GraduationRuleInputSchema).min(1),
});
/** Parsed rules document. */
export type GraduationRulesDocument = z.infer<typeof GraduationRulesDocumentSchema>;
/** What a caller writes (defaults optional). */
export type GraduationRulesDocumentInput = z.input<typeof GraduationRulesDocumentSchema>;

/**
 * Writes `doc` (validated; ZodError when invalid) in one transaction: each rule upserted by
 * (portal type, kind, name) with its areas, required courses and languages replaced, so a second
 * run changes nothing and a changed document updates its rules. Rules the document does not name
 * are kept. Concurrent runs are serialised by an advisory lock. Returns the rules' ids by name.
 */
export async function applyGraduationRules(db: PrismaClient, input: GraduationRulesDocumentInput): Promise<Record<string, string>> {
  const doc = GraduationRulesDocumentSchema.parse(input);
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${`po-graduation-rules:${doc.portalType}`}, 0))) AS l`;
      const ids: Record<string, string> = {};
      for (const r of doc.rules) {
        const data = {
          department: r.department,
          major: r.major,
          admissionYearFrom: r.admissionYearFrom,
          admissionYearTo: r.admissionYearTo,
          totalCredits: r.totalCredits,
        };
        const rule = await tx.graduationRule.upsert({
          where: { portalType_kind_name: { portalType: doc.portalType, kind: r.kind, name: r.name } },
          create: { portalType: doc.portalType, kind: r.kind, name: r.name, ...data },
          update: data,
          select: { id: true },
        });
        ids[r.name] = rule.id;
        await tx.graduationRuleArea.deleteMany({ where: { ruleId: rule.id } });
        await tx.graduationRuleCourse.deleteMany({ where: { ruleId: rule.id } });
        await tx.graduationRuleLanguage.deleteMany({ where: { ruleId: rule.id } });
        if (r.areas.length > 0) await tx.graduationRuleArea.createMany({ data: r.areas.map((a) => ({ ruleId: rule.id, ...a })) });
        if (r.requiredCourses.length > 0) await tx.graduationRuleCourse.createMany({ data: r.requiredCourses.map((c) => ({ ruleId: rule.id, ...c })) });
        if (r.languages.length > 0) await tx.graduationRuleLanguage.createMany({ data: r.languages.map((l) => ({ ruleId: rule.id, ...l })) });
      }
      return ids;
    },
    { timeout: 30_000, maxWait: 10_000, isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
  );
}

/** Every rule of `portalType` with its child rows, as the pure domain's {@link GraduationRule}. */
export async function loadGraduationRules(db: PrismaClient | Prisma.TransactionClient, portalType: string): Promise<GraduationRule[]> {
  const rows = await db.graduationRule.findMany({
    where: { portalType },
    include: { areas: { orderBy: { name: 'asc' } }, courses: { orderBy: { courseCode: 'asc' } }, languages: { orderBy: { kind: 'asc' } } },
  });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.kind,
    portalType: r.portalType,
    department: r.department,
    major: r.major,
    admissionYearFrom: r.admissionYearFrom,
    admissionYearTo: r.admissionYearTo,
    totalCredits: r.totalCredits,
    areas: r.areas.map((a) => ({ name: a.name, areas: a.areas, minCredits: a.minCredits })),
    requiredCourses: r.courses.map((c) => ({ courseCode: c.courseCode, courseName: c.courseName })),
    languages: r.languages.map((l) => ({ kind: l.kind, minScore: l.minScore, levels: l.levels })),
  }));
}
