/**
 * `npm run db:dump` (scripts/db-dump.ts, src/db/dump.ts) against a real PostgreSQL and against the
 * embedded PGlite server: rows with hostile values (quotes, backslashes, psql meta-command lines,
 * unicode with astral characters, bytea, json and jsonb, arrays, timestamps, special floats,
 * NULLs, pgvector where the extension exists) are dumped, restored with psql into a freshly
 * migrated database, and every table's rows compare equal.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/db/embedded';
import { migrateDeploy } from '../../../src/db/migrate';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../support/postgres';

jest.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const PSQL = path.join(process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin', 'psql');

const HOSTILE = [
  "it's \"quoted\" ''twice''",
  'back\\slash \\\\ \\x41 \\n E\'\\t\' \\',
  'line one\n\\.\n\\q\n\\! echo pwned\n-- not a comment; /* nor this */ $$dollar$$ $tag$x$tag$',
  'é 한국어 😀 𝄞 \u2028 \uFEFF zero\u200Bwidth',
  '\r\n\ttabs and CRLF\r\n',
  '',
];

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** A table the migrations do not have, with one column per tricky type; created on both sides. */
function probeTableSql(withVector: boolean): string {
  return `CREATE TABLE dump_probe (
    id integer PRIMARY KEY,
    t text, ts text[], j json, jb jsonb, b bytea, tz timestamptz(6), tl timestamp, d date,
    f double precision, n numeric, i interval, ok boolean, u uuid[]${withVector ? ', v vector(3)' : ''}
  )`;
}

async function seed(url: string, withVector: boolean): Promise<void> {
  const c = await connect(url);
  try {
    await c.query(probeTableSql(withVector));
    const userId = randomUUID();
    await c.query('INSERT INTO users (id, name, time_zone) VALUES ($1, $2, $3)', [userId, HOSTILE[0], 'Asia/Seoul']);
    const categoryId = randomUUID();
    await c.query('INSERT INTO categories (id, name) VALUES ($1, $2)', [categoryId, HOSTILE[3]]);
    const cardIds: string[] = [];
    for (const [k, text] of HOSTILE.entries()) {
      const scrapId = randomUUID();
      await c.query('INSERT INTO scraps (id, user_id, content, content_hash, source_url, title) VALUES ($1, $2, $3, $4, $5, $6)', [
        scrapId,
        userId,
        text,
        String(k).padStart(64, '0'),
        k % 2 ? null : 'https://example.com/?q=a%27b&x="y"',
        k % 3 ? text.toUpperCase() : null,
      ]);
      if (k === 0) {
        cardIds.push(randomUUID());
        const embedding = Buffer.from([0, 1, 0x27, 0x5c, 0xff, 0x00, 0x0a]);
        await c.query('INSERT INTO knowledge_cards (id, user_id, scrap_id, category_id, title, summary, embedding) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          cardIds[0],
          userId,
          scrapId,
          categoryId,
          HOSTILE[1],
          HOSTILE[2],
          embedding,
        ]);
        if (withVector) await c.query(`UPDATE knowledge_cards SET embedding_vec = array_fill(0.25, ARRAY[1536])::vector WHERE id = $1`, [cardIds[0]]);
      }
    }
    await c.query('INSERT INTO daily_summaries (id, user_id, target_date, title, til_markdown, embedding, source_card_ids, generated_at) VALUES ($1, $2, $3, $4, $5, NULL, $6, $7)', [
      randomUUID(),
      userId,
      '2026-02-28',
      null,
      HOSTILE.join('\n'),
      [...cardIds, randomUUID()],
      '2026-02-28T23:59:59.999Z',
    ]);
    await c.query(`INSERT INTO recall_quiz_generations (id, user_id, target_date, quiz_types, status) VALUES ($1, $2, '2026-03-01', '{OX,SHORT_ANSWER}', 'COMPLETED')`, [randomUUID(), userId]);

    const probe = `INSERT INTO dump_probe (id, t, ts, j, jb, b, tz, tl, d, f, n, i, ok, u${withVector ? ', v' : ''})
      VALUES ($1, $2, $3, $4::json, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14${withVector ? ', $15' : ''})`;
    const rows: unknown[][] = [
      [1, HOSTILE[1], HOSTILE, '{"b": 1, "a": "it\'s \\\\ \\"q\\" 😀",   "a": [null, true, 1e400]}', { k: HOSTILE[2], arr: [HOSTILE[3], null, 1.5] }, Buffer.from('\x00\'\\x\\\\'), '2026-01-01T12:34:56.123456+05:30', '1999-12-31 23:59:59.999999', '0001-01-01', 0.1, '12345678901234567890.123456789012', '1 year 2 mons -3 days 04:05:06.789', true, [randomUUID()], '[0.1,-2.5,3e-7]'],
      [2, HOSTILE[2], ['{', '}', ',', '"', 'NULL', null, '', ' padded '], '[]', '"just a string"', Buffer.alloc(0), 'infinity', '-infinity', 'infinity', 'NaN', 'NaN', '-178000000 years', false, [], '[0,0,0]'],
      [3, null, null, null, null, null, null, null, null, '-Infinity', '-0.000', null, null, null, null],
      [4, HOSTILE[3], [HOSTILE[4], HOSTILE[0]], 'null', '{"nested": {"deep": ["\\\\", "\'"]}}', Buffer.from(HOSTILE[3]!), '1970-01-01T00:00:00Z', '2000-02-29 00:00:00', '2000-02-29', -0, '0', '0', null, null, null],
      [5, 'x', ['a'], '1e-300', '5e-324', Buffer.from([0xde, 0xad]), '2026-06-30T23:59:59.5-07:00', null, null, 5e-324, '1e-20', null, true, null, null],
    ];
    for (const row of rows) await c.query(probe, withVector ? row : row.slice(0, -1));
  } finally {
    await c.end();
  }
}

/** Every table's rows as their record text, sorted: `{ table: rows }`. */
async function snapshot(url: string): Promise<Record<string, string[]>> {
  const c = await connect(url);
  try {
    await c.query("SET TimeZone = 'UTC'");
    const { rows: tables } = await c.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1",
    );
    const out: Record<string, string[]> = {};
    for (const { name } of tables) {
      const { rows } = await c.query<{ r: string }>(`SELECT t::text AS r FROM public."${name}" t ORDER BY 1`);
      out[name] = rows.map((r) => r.r);
    }
    return out;
  } finally {
    await c.end();
  }
}

async function dumpAndRestore(sourceUrl: string, targetUrl: string, withVector: boolean): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'db-dump-test-'));
  try {
    const file = path.join(dir, 'dump.sql');
    const dumped = await run(process.execPath, ['--import', 'tsx', 'scripts/db-dump.ts', '--out', file, '--database-url', sourceUrl], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '' } });
    expect(dumped.stdout).toMatch(/rows of \d+ tables/);
    await migrateDeploy(targetUrl);
    const c = await connect(targetUrl);
    await c.query(probeTableSql(withVector));
    await c.end();
    await run(PSQL, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', file, targetUrl], { env: { ...process.env, PGOPTIONS: '' } });
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function expectSameRows(source: Record<string, string[]>, restored: Record<string, string[]>): void {
  expect(Object.keys(restored)).toEqual(Object.keys(source));
  for (const table of Object.keys(source)) expect({ table, rows: restored[table] }).toEqual({ table, rows: source[table] });
  for (const table of ['users', 'scraps', 'categories', 'knowledge_cards', 'daily_summaries', 'recall_quiz_generations', 'dump_probe']) {
    expect({ table, seeded: (source[table]?.length ?? 0) > 0 }).toEqual({ table, seeded: true });
  }
}

describe('npm run db:dump', () => {
  const adminUrl = () => {
    const url = process.env.TEST_PG_ADMIN_URL;
    if (!url) throw new Error('TEST_PG_ADMIN_URL is not set (jest globalSetup)');
    return url;
  };

  it('restores a real PostgreSQL database row for row, hostile values included', async () => {
    const dbs: TestDatabase[] = [];
    try {
      const source = await createTestDatabase(adminUrl());
      dbs.push(source);
      const target = await createEmptyDatabase(adminUrl(), 'restore');
      dbs.push(target);
      await seed(source.url, false);
      const sql = await dumpAndRestore(source.url, target.url, false);
      expect(sql).toContain('npx prisma migrate deploy');
      expect(sql).not.toContain('_prisma_migrations');
      expectSameRows(await snapshot(source.url), await snapshot(target.url));
    } finally {
      for (const db of dbs) await db.drop();
    }
  });

  it('restores the embedded PGlite database, pgvector column included', async () => {
    const servers: EmbeddedPostgres[] = [];
    try {
      const source = await startEmbeddedPostgres({ dataDir: 'memory://' });
      servers.push(source);
      const target = await startEmbeddedPostgres({ dataDir: 'memory://' });
      servers.push(target);
      await migrateDeploy(source.url);
      await seed(source.url, true);
      await dumpAndRestore(source.url, target.url, true);
      const restored = await snapshot(target.url);
      expectSameRows(await snapshot(source.url), restored);
      expect(restored.knowledge_cards?.[0]).toContain('[0.25,0.25');
    } finally {
      for (const s of servers) await s.stop();
    }
  });
});
