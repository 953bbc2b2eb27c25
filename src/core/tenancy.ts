/**
 * Company membership with roles (shared by every company-scoped family). Tokens stay per
 * user; a resource belongs to one company. A company the caller is not a member of does not exist
 * for them (404, never 403, so ids of other tenants leak nothing); a member without a required role
 * is refused (403).
 */
import type { CompanyRole, PrismaClient } from '@prisma/client';
import { CORE_ERRORS } from './errors';

/** Roles, strongest first (the `CompanyRole` enum). */
export const COMPANY_ROLES = ['OWNER', 'HR_MANAGER', 'VIEWER'] as const satisfies readonly CompanyRole[];

/** What a membership check needs of the database (a PrismaClient or a transaction client). */
export type MembershipReader = Pick<PrismaClient, 'companyMember'>;

/**
 * The caller's role in `companyId`.
 * @throws DomainError `not-found` `NOT_FOUND` when the user is not a member (or the company does not
 *   exist); `forbidden` `FORBIDDEN` when `allowed` is given and the member's role is not in it.
 */
export async function requireMembership(
  db: MembershipReader,
  userId: string,
  companyId: string,
  allowed?: readonly CompanyRole[],
): Promise<CompanyRole> {
  const member = await db.companyMember.findUnique({
    where: { companyId_userId: { companyId, userId } },
    select: { role: true },
  });
  return checkMemberRole(member?.role ?? null, allowed);
}

/**
 * The verdict of {@link requireMembership} on a role already read (null: not a member).
 * @throws DomainError NOT_FOUND (not a member), FORBIDDEN (role not in `allowed`).
 */
export function checkMemberRole(role: CompanyRole | null, allowed?: readonly CompanyRole[]): CompanyRole {
  if (!role) throw CORE_ERRORS.problem('NOT_FOUND', 'company not found');
  if (allowed && !allowed.includes(role)) {
    throw CORE_ERRORS.problem('FORBIDDEN', `this action needs one of the roles ${allowed.join(', ')}`);
  }
  return role;
}
