/**
 * The stack `npm run schemathesis` tests against, kept up until SIGINT/SIGTERM: the test servers
 * (PostgreSQL 15, the Temporal dev server, moto; test/support/global-setup.ts), the GitHub emulator,
 * one integration stack (test/support/stack.ts: a fresh database, the `jobs`, `ai` and `ai-runs`
 * workers) and the API listening on a free 127.0.0.1 port. A company with an OWNER is seeded so that AI-run
 * operations get past 404. Writes `{ apiUrl, token, companyId }` as JSON to the file given as the
 * first argument once the API listens.
 */
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import globalSetup from '../../test/support/global-setup';
import globalTeardown from '../../test/support/global-teardown';
import { seedCompany } from '../../test/support/ai-runs-seed';
import { startGithubEmulator } from '../../test/support/github-emulator';
import { startStack, type Stack } from '../../test/support/stack';
import { createStops } from '../lib/stops';

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: stack.ts <info.json>');
  const stops = createStops('schemathesis-stack');
  try {
    await globalSetup();
    stops.add('test servers', () => globalTeardown());
    const github = await startGithubEmulator();
    stops.add('GitHub emulator', () => github.close());
    const stack: Stack = await startStack({ env: { LOG_LEVEL: 'error', GITHUB_API_URL: github.url } });
    stops.add('stack', () => stack.stop());
    const { companyId, members } = await seedCompany(stack, ['OWNER']);
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const apiUrl = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}`;
    writeFileSync(out, JSON.stringify({ apiUrl, token: members.OWNER.token, companyId }));
    process.stdout.write(`schemathesis stack: API ${apiUrl}, company ${companyId}\n`);
    await new Promise<void>((resolve) => {
      process.on('SIGINT', () => resolve());
      process.on('SIGTERM', () => resolve());
    });
  } finally {
    await stops.stopAll();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
