/**
 * `npm run company:create -- --name <company> [--member <userName>:<ROLE> …]`: creates the company
 * (or reuses it) and gives each named user (created when missing) its role (OWNER, HR_MANAGER,
 * VIEWER); prints `{"companyId","members":[{"userId","name","role"}]}`. New users get no token here
 * (`npm run user:create` prints one). Needs DATABASE_URL.
 */
import { parseArgs } from 'node:util';
import type { CompanyRole } from '@prisma/client';
import { ensureCompany, setMember } from '../core/companies';
import { COMPANY_ROLES } from '../core/tenancy';
import { loadConfig } from '../families';
import { openDatabase } from '../core/connections';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' }, member: { type: 'string', multiple: true, default: [] } } });
  const members = (values.member ?? []).map((m) => {
    const [name, role] = m.split(':');
    if (!name || !role || !(COMPANY_ROLES as readonly string[]).includes(role)) throw new Error(`--member ${m}: expected <userName>:<${COMPANY_ROLES.join('|')}>`);
    return { name, role: role as CompanyRole };
  });
  if (!values.name) {
    console.error('usage: npm run company:create -- --name <company> [--member alice:HR_MANAGER] [--member bob:VIEWER]');
    process.exit(2);
  }
  const db = openDatabase(loadConfig());
  try {
    const companyId = await ensureCompany(db, values.name);
    const out = [];
    for (const m of members) {
      const user = await db.user.upsert({ where: { name: m.name }, create: { name: m.name }, update: {}, select: { id: true } });
      await setMember(db, companyId, user.id, m.role);
      out.push({ userId: user.id, name: m.name, role: m.role });
    }
    console.log(JSON.stringify({ companyId, members: out }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
