/**
 * `npm run user:create -- --name <name> [--tz <IANA zone>]`: creates the user (or reuses it) and
 * prints a new bearer token once. Needs DATABASE_URL.
 */
import { parseArgs } from 'node:util';
import { createUserWithToken } from '../auth/tokens';
import { loadConfig } from '../config';
import { openDatabase } from '../runtime';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' }, tz: { type: 'string' }, label: { type: 'string' } } });
  if (!values.name) {
    console.error('usage: npm run user:create -- --name <name> [--tz Asia/Seoul] [--label laptop]');
    process.exit(2);
  }
  const db = openDatabase(loadConfig());
  try {
    const { userId, token } = await createUserWithToken(db, values.name, { timeZone: values.tz, label: values.label });
    console.log(JSON.stringify({ userId, token }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
