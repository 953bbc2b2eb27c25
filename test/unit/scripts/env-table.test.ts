/**
 * The README's environment variable table is what scripts/docs/env-table.ts generates from the
 * config schema (`npm run docs:env`; `--check` in its own process refuses a stale file), names every
 * variable the config reads, and agrees with .env.example's defaults.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { configSection } from '../../../src/config';
import { CONFIG_ENV_NAMES } from '../../../src/families';
import { defaultOf, ENV_BLOCK, envRows, envTable, withEnvTable } from '../../../scripts/docs/env-table';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const README = path.join(ROOT, 'README.md');
const check = (file: string) =>
  spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/docs/env-table.ts', '--check', '--file', file], { cwd: ROOT, encoding: 'utf8' });

describe('README environment variable table', () => {
  test('is current (else: npm run docs:env)', () => {
    const { current, synced } = withEnvTable(README);
    expect(current).toBe(synced);
  });

  test('has one described row per variable the config reads, in the README', () => {
    const rows = envRows();
    expect(rows.map((r) => r.name)).toEqual([...CONFIG_ENV_NAMES]);
    const readme = readFileSync(README, 'utf8');
    const block = readme.slice(readme.indexOf(ENV_BLOCK.begin), readme.indexOf(ENV_BLOCK.end));
    for (const r of rows) {
      expect({ name: r.name, meaning: r.meaning.length > 0, readBy: r.readBy.length > 0 }).toEqual({ name: r.name, meaning: true, readBy: true });
      expect(block).toContain(`| \`${r.name}\` |`);
    }
    expect(rows.find((r) => r.name === 'PORTAL_ACTIVITY_CONCURRENCY')?.readBy).toBe('worker-portal');
    expect(rows.find((r) => r.name === 'PORTAL_CALLBACK_SECRETS')?.readBy).toMatch(/^API, .*worker-portal/);
    expect(rows.find((r) => r.name === 'DATABASE_URL')?.readBy).toBe('every process');
  });

  test('defaults are the ones .env.example sets', () => {
    const example = new Map(
      readFileSync(path.join(ROOT, '.env.example'), 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
    );
    for (const r of envRows()) expect({ name: r.name, value: r.defaultValue ?? '' }).toEqual({ name: r.name, value: example.get(r.name) });
  });

  test('reads defaults through optional and describe, and refuses an undescribed variable', () => {
    expect(defaultOf(z.coerce.number().default(5).describe('x'))).toBe('5');
    expect(defaultOf(z.string().optional().describe('x'))).toBeUndefined();
    expect(defaultOf(z.enum(['a', 'b']).default('b'))).toBe('b');
    const section = configSection({ SOME_VAR: z.string().default('v') }, () => ({}));
    expect(() => envRows([section], [])).toThrow(/SOME_VAR has no \.describe\(\) text/);
    expect(envTable([{ name: 'A', defaultValue: '', meaning: 'x | y', readBy: 'API' }])).toContain('| `A` | (empty) | x \\| y | API |');
  });

  test('--check passes on the README and refuses a stale copy', () => {
    expect({ status: check(README).status }).toEqual({ status: 0 });
    const dir = mkdtempSync(path.join(tmpdir(), 'env-table-'));
    try {
      const stale = path.join(dir, 'README.md');
      writeFileSync(stale, readFileSync(README, 'utf8').replace('| `DATABASE_POOL_MAX` | `10` |', '| `DATABASE_POOL_MAX` | `11` |'));
      const r = check(stale);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('differs from the config schema');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
