/**
 * The typed client's committed types (clients/typescript/schema.d.ts) are exactly what
 * openapi-typescript generates from the server's current OpenAPI document, so they never drift from
 * it: `npm run client:generate -- --check` (scripts/openapi/client.ts, its own process: openapi-typescript
 * loads ESM modules Jest cannot require) passes on the committed file and refuses a file that differs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const COMMITTED = path.join(ROOT, 'clients', 'typescript', 'schema.d.ts');
const check = (file: string) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/openapi/client.ts', '--check', '--file', file], { cwd: ROOT, encoding: 'utf8' });

describe('clients/typescript/schema.d.ts', () => {
  test('equals what the current OpenAPI document generates (else: npm run client:generate)', () => {
    const r = check(COMMITTED);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });

  test('types the operations the demo and the bench call', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    for (const op of ['postScraps', 'getAsyncJobsByJobId', 'postApiV1AiRuns', 'getApiV1AiRunsByAiRunId', 'postPortalLink']) {
      expect(committed).toContain(`\n    ${op}: {`);
    }
  });

  test('a file that differs from the generated one is refused', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'client-schema-'));
    try {
      const changed = path.join(dir, 'schema.d.ts');
      writeFileSync(changed, readFileSync(COMMITTED, 'utf8').replace('\n    postScraps: {', '\n    postScrapz: {'));
      const r = check(changed);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('differs from what the current OpenAPI document generates');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
