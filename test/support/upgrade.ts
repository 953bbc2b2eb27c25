/**
 * The pieces of the migrations upgrade test (test/integration/core/migrations-upgrade.test.ts):
 * the migrations in Prisma's order, their seed files, what each migration added to the catalogue,
 * and snapshots of every table's rows to prove that data of earlier releases survives.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Client } from 'pg';

/** prisma/migrations/<name>/migration.sql folders, in the order `migrate deploy` applies them (by name). */
export function listMigrations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort();
}

/** test/migrations/<migration>.seed.sql: the data written by the release that shipped the migration. */
export function seedFile(seedDir: string, migration: string): string {
  return path.join(seedDir, `${migration}.seed.sql`);
}

/** Tables and enum labels of the `public` schema (without Prisma's `_prisma_migrations`). */
export interface Catalog {
  tables: string[];
  enumLabels: Array<{ type: string; label: string }>;
}

const quote = (ident: string) => `"${ident.replaceAll('"', '""')}"`;

/** Reads the tables and enum labels of the `public` schema. */
export async function readCatalog(db: Client): Promise<Catalog> {
  const tables = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations' ORDER BY 1`,
  );
  const labels = await db.query<{ type: string; label: string }>(
    `SELECT t.typname AS type, e.enumlabel AS label FROM pg_enum e
       JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' ORDER BY t.typname, e.enumsortorder`,
  );
  return { tables: tables.rows.map((r) => r.name), enumLabels: labels.rows };
}

/** What `after` has that `before` lacks: the tables and enum labels a migration added. */
export function added(before: Catalog, after: Catalog): Catalog {
  return {
    tables: after.tables.filter((t) => !before.tables.includes(t)),
    enumLabels: after.enumLabels.filter((l) => !before.enumLabels.some((b) => b.type === l.type && b.label === l.label)),
  };
}

/**
 * What a seed leaves uncovered of what its migration added: tables with no row, and enum labels
 * that no column of that enum (or array of it) holds. Empty when the seed covers everything.
 */
export async function uncovered(db: Client, news: Catalog): Promise<string[]> {
  const gaps: string[] = [];
  for (const table of news.tables) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`);
    if (rows[0]?.n === 0) gaps.push(`table ${table} has no seeded row`);
  }
  for (const { type, label } of news.enumLabels) {
    const cols = await db.query<{ tbl: string; col: string; is_array: boolean }>(
      `SELECT c.relname AS tbl, a.attname AS col, a.atttypid = t.typarray AS is_array
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_type t ON a.atttypid IN (t.oid, t.typarray)
        WHERE t.typname = $1 AND n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`,
      [type],
    );
    let used = false;
    for (const { tbl, col, is_array } of cols.rows) {
      const test = is_array ? `${quote(col)}::text[] @> ARRAY[$1::text]` : `${quote(col)}::text = $1`;
      const { rows } = await db.query<{ hit: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${quote(tbl)} WHERE ${test}) AS hit`, [label]);
      if (rows[0]?.hit) {
        used = true;
        break;
      }
    }
    if (!used) gaps.push(`enum value ${type}.${label} is in no seeded row`);
  }
  return gaps;
}

/** A row as `to_jsonb` renders it: column name → JSON value. */
export type Row = Record<string, unknown>;
/** Table → (primary-key values as JSON, or the whole row without a primary key) → row. */
export type Snapshot = Map<string, Map<string, Row>>;

/** Every row of every `public` table (except `_prisma_migrations`), keyed by primary key. */
export async function snapshot(db: Client): Promise<Snapshot> {
  const pks = await db.query<{ tbl: string; cols: string[] }>(
    `SELECT c.relname AS tbl, array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum)) AS cols
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey::int2[])
      WHERE i.indisprimary AND n.nspname = 'public' GROUP BY c.relname`,
  );
  const pkOf = new Map(pks.rows.map((r) => [r.tbl, r.cols]));
  const out: Snapshot = new Map();
  for (const table of (await readCatalog(db)).tables) {
    const { rows } = await db.query<{ r: Row }>(`SELECT to_jsonb(t) AS r FROM ${quote(table)} t`);
    const pk = pkOf.get(table);
    out.set(table, new Map(rows.map(({ r }) => [JSON.stringify(pk ? pk.map((c) => r[c]) : r), r])));
  }
  return out;
}

/** The rows of `now` that `before` does not have (same table and key): the rows one seed wrote. */
export function newRows(before: Snapshot, now: Snapshot): Snapshot {
  const out: Snapshot = new Map();
  for (const [table, rows] of now) {
    const old = before.get(table);
    const fresh = new Map([...rows].filter(([key]) => !old?.has(key)));
    if (fresh.size > 0) out.set(table, fresh);
  }
  return out;
}

/** One row of an earlier release that the later migrations lost or changed. */
export interface LostRow {
  release: string;
  table: string;
  key: string;
  /** `missing`: the row is gone; otherwise the columns whose value changed (or that were dropped). */
  problem: 'missing' | { column: string; seeded: unknown; now: unknown }[];
}

/**
 * Compares the rows each release wrote (as they were right after its seed) with the final
 * database: every row must still exist with the same value in every column it had. Columns
 * added by later migrations are not compared.
 */
export function lostRows(releases: Array<{ release: string; rows: Snapshot }>, final: Snapshot): LostRow[] {
  const lost: LostRow[] = [];
  for (const { release, rows } of releases) {
    for (const [table, seeded] of rows) {
      for (const [key, row] of seeded) {
        const now = final.get(table)?.get(key);
        if (!now) {
          lost.push({ release, table, key, problem: 'missing' });
          continue;
        }
        const changed = Object.keys(row)
          .filter((column) => !isDeepStrictEqual(row[column], now[column]))
          .map((column) => ({ column, seeded: row[column], now: column in now ? now[column] : '(column dropped)' }));
        if (changed.length > 0) lost.push({ release, table, key, problem: changed });
      }
    }
  }
  return lost;
}
