/**
 * `npm run user:create -- --name <name> [--tz <IANA zone>] [--label <label>] [--token-only]`:
 * creates the user (or reuses it) and prints a new bearer token once, as `{"userId","token"}`
 * or, with `--token-only`, the bare token (for `TOKEN=$(npm run -s user:create -- … --token-only)`).
 * Needs DATABASE_URL; against the running demo's embedded database use the URL the demo prints.
 */
import { parseArgs } from 'node:util';
import { createUserWithToken } from '../auth/tokens';
import { loadConfig } from '../families';
import { openDatabase } from '../core/connections';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { name: { type: 'string' }, tz: { type: 'string' }, label: { type: 'string' }, 'token-only': { type: 'boolean', default: false } },
  });
  if (!values.name) {
    console.error('usage: npm run user:create -- --name <name> [--tz Asia/Seoul] [--label laptop] [--token-only]');
    process.exit(2);
  }
  const db = openDatabase(loadConfig());
  try {
    const { userId, token } = await createUserWithToken(db, values.name, { timeZone: values.tz, label: values.label });
    console.log(values['token-only'] ? token : JSON.stringify({ userId, token }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
