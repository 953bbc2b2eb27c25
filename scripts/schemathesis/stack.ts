/**
 * The stack `npm run schemathesis` tests against, kept up until SIGINT/SIGTERM: the test servers
 * (PostgreSQL 15, the Temporal dev server, moto; test/support/global-setup.ts), the GitHub emulator,
 * one integration stack (test/support/stack.ts: a fresh database, the `jobs`, `ai` and `ai-runs`
 * workers) and the API listening on a free 127.0.0.1 port. A company with an OWNER is seeded so that AI-run
 * operations get past 404, and in it two SUCCEEDED runs with candidates, one of them decided (a Task),
 * so that run and Task reads, decisions, retry and cancel meet real resources (scripts/schemathesis/
 * hooks.py puts their ids into half of the positive cases). Writes `{ apiUrl, token, companyId,
 * aiRunIds, taskIds }` as JSON to the file given as the first argument once the API listens.
 */
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import globalSetup from '../../test/support/global-setup';
import globalTeardown from '../../test/support/global-teardown';
import { seedCompany, seedRun } from '../../test/support/ai-runs-seed';
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
    const owner = members.OWNER;
    const open = await seedRun(stack, companyId, owner.userId, { attempts: [[{}, { missingSlots: ['dueDate'], slots: { purpose: 'visa' } }]] });
    const decided = await seedRun(stack, companyId, owner.userId, { attempts: [[{}, {}]] });
    const decision = await stack.app.inject({
      method: 'POST',
      url: `/api/v1/ai-runs/${decided.runId}/candidate-decisions`,
      headers: owner.auth,
      payload: { decisions: [{ candidateId: decided.candidates[0][0], decision: 'ADOPT' }], version: 3 },
    });
    if (decision.statusCode !== 200) throw new Error(`seeding a Task: ${decision.statusCode} ${decision.body}`);
    const taskIds = (await stack.db.task.findMany({ where: { runId: decided.runId }, select: { id: true } })).map((t) => t.id);
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const apiUrl = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}`;
    writeFileSync(out, JSON.stringify({ apiUrl, token: owner.token, companyId, aiRunIds: [open.runId, decided.runId], taskIds }));
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
