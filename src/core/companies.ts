/**
 * Companies and their members (shared by the company-scoped families): create a
 * company (or find it by name), give a user a role in it or remove them. Used by the CLI, the demo
 * and tests.
 */
import type { CompanyRole, PrismaClient } from '@prisma/client';

/** The company named `name` (created when missing). Returns its id. */
export async function ensureCompany(db: Pick<PrismaClient, 'company'>, name: string): Promise<string> {
  const row = await db.company.upsert({ where: { name }, create: { name }, update: {}, select: { id: true } });
  return row.id;
}

/** Makes `userId` a member of `companyId` with `role` (an existing membership gets the new role). */
export async function setMember(db: Pick<PrismaClient, 'companyMember'>, companyId: string, userId: string, role: CompanyRole): Promise<void> {
  await db.companyMember.upsert({
    where: { companyId_userId: { companyId, userId } },
    create: { companyId, userId, role },
    update: { role },
  });
}

/** Removes `userId` from `companyId`; returns whether they were a member. */
export async function removeMember(db: Pick<PrismaClient, 'companyMember'>, companyId: string, userId: string): Promise<boolean> {
  const done = await db.companyMember.deleteMany({ where: { companyId, userId } });
  return done.count > 0;
}
