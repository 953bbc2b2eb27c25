/**
 * A data dump over the ordinary PostgreSQL protocol, for the embedded PGlite server (whose server
 * version pg_dump refuses) as for any PostgreSQL: one consistent snapshot of every row of every
 * table of a schema (Prisma's `_prisma_migrations` left out), written as plain SQL `INSERT`s in
 * foreign-key order. The schema itself comes from the migrations: restore with
 * `npx prisma migrate deploy` on an empty database, then `psql -v ON_ERROR_STOP=1 -f FILE`.
 */
import type { Client } from 'pg';

/** Options of {@link dumpDatabase}. */
export interface DumpOptions {
  /** Schema whose tables are dumped (default `public`). */
  schema?: string;
  /** Tables left out (default `['_prisma_migrations']`: the migrations recreate it). */
  excludeTables?: string[];
  /** Rows fetched per round trip and written per `INSERT` statement (default 200). */
  batchRows?: number;
}

/** What {@link dumpDatabase} wrote: each table in restore order with its row count. */
export interface DumpSummary {
  tables: Array<{ name: string; rows: number }>;
}

/** A table's dumped columns and its primary key (the row order of the dump). */
interface TableInfo {
  name: string;
  columns: string[];
  primaryKey: string[];
}

/** Raised when the tables' foreign keys form a cycle, which an INSERT order cannot satisfy. */
export class DumpOrderError extends Error {
  override readonly name = 'DumpOrderError';
}

/** `name` as a double-quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * `value` (a column's text output) as a standard-conforming SQL string literal, or `NULL`. The
 * column's own input function turns it back into the value (json, bytea in hex, arrays, vectors,
 * timestamps with their offset, enums): INSERT coerces an untyped literal to the column type.
 */
export function sqlLiteral(value: string | null): string {
  return value === null ? 'NULL' : `'${value.replace(/'/g, "''")}'`;
}

/**
 * `tables` ordered so that every table comes after the tables it references (`references` maps a
 * table to the tables its foreign keys point at; self-references are ignored, see dumpDatabase).
 * Ties keep alphabetical order, so the same schema always gives the same order.
 * @throws DumpOrderError naming the tables of a foreign-key cycle.
 */
export function foreignKeyOrder(tables: string[], references: Map<string, Set<string>>): string[] {
  const pending = new Set([...tables].sort());
  const ordered: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending].filter((t) => [...(references.get(t) ?? [])].every((p) => p === t || !pending.has(p)));
    if (ready.length === 0) throw new DumpOrderError(`foreign keys form a cycle among: ${[...pending].join(', ')}`);
    for (const t of ready) {
      pending.delete(t);
      ordered.push(t);
    }
  }
  return ordered;
}

async function readTables(client: Client, schema: string, exclude: Set<string>): Promise<{ tables: TableInfo[]; references: Map<string, Set<string>>; selfReferencing: string[] }> {
  const columns = await client.query<{ table: string; column: string }>(
    `SELECT c.relname AS table, a.attname AS column
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const keys = await client.query<{ table: string; column: string }>(
    `SELECT c.relname AS table, a.attname AS column
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, pos) ON true
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE n.nspname = $1 AND i.indisprimary
      ORDER BY c.relname, k.pos`,
    [schema],
  );
  const fks = await client.query<{ child: string; parent: string }>(
    `SELECT ch.relname AS child, pa.relname AS parent
       FROM pg_constraint f
       JOIN pg_class ch ON ch.oid = f.conrelid
       JOIN pg_class pa ON pa.oid = f.confrelid
       JOIN pg_namespace n ON n.oid = ch.relnamespace
      WHERE n.nspname = $1 AND f.contype = 'f'`,
    [schema],
  );
  const byName = new Map<string, TableInfo>();
  for (const { table, column } of columns.rows) {
    if (exclude.has(table)) continue;
    let info = byName.get(table);
    if (!info) byName.set(table, (info = { name: table, columns: [], primaryKey: [] }));
    info.columns.push(column);
  }
  for (const { table, column } of keys.rows) byName.get(table)?.primaryKey.push(column);
  const references = new Map<string, Set<string>>();
  const selfReferencing = new Set<string>();
  for (const { child, parent } of fks.rows) {
    if (!byName.has(child)) continue;
    if (child === parent) selfReferencing.add(child);
    let set = references.get(child);
    if (!set) references.set(child, (set = new Set()));
    set.add(parent);
  }
  return { tables: [...byName.values()], references, selfReferencing: [...selfReferencing] };
}

/** The header of a dump file: what it holds and how to restore it. */
function header(schema: string, tables: string[]): string {
  return [
    '-- Data dump written by `npm run db:dump` (src/db/dump.ts): every row of the tables below, as INSERTs.',
    '-- It holds no schema. Restore into an empty database:',
    '--   DATABASE_URL=<url> npx prisma migrate deploy',
    '--   psql -v ON_ERROR_STOP=1 -f <this file> <url>',
    '-- One transaction: it restores completely or not at all.',
    `-- Schema ${schema}; tables in foreign-key order: ${tables.join(', ') || '(none)'}.`,
    "SET client_encoding = 'UTF8';",
    'SET standard_conforming_strings = on;',
    `SET search_path = ${quoteIdent(schema)}, public;`,
    'BEGIN;',
    '',
  ].join('\n');
}

/**
 * Writes a data dump of `client`'s database through `write` (awaited per chunk, so a slow file
 * applies back-pressure). Reads in one REPEATABLE READ READ ONLY transaction (a consistent
 * snapshot; the session settings it needs are SET LOCAL, so a shared PGlite session is left as it
 * was), table by table in {@link foreignKeyOrder}, rows in primary-key order through a cursor.
 * Each value goes out as its type's text output in a string literal ({@link sqlLiteral}):
 * bytea in hex, timestamps in ISO with their offset, floats with every digit.
 * @throws DumpOrderError when foreign keys form a cycle or a table references itself (no INSERT
 *   order is safe then); any query error of `client` as is.
 */
export async function dumpDatabase(client: Client, write: (chunk: string) => Promise<void>, opts: DumpOptions = {}): Promise<DumpSummary> {
  const schema = opts.schema ?? 'public';
  const batchRows = opts.batchRows ?? 200;
  const exclude = new Set(opts.excludeTables ?? ['_prisma_migrations']);
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const setting of ["DateStyle = 'ISO, YMD'", "IntervalStyle = 'postgres'", "TimeZone = 'UTC'", "bytea_output = 'hex'", 'extra_float_digits = 3']) {
      await client.query(`SET LOCAL ${setting}`);
    }
    const { tables, references, selfReferencing } = await readTables(client, schema, exclude);
    if (selfReferencing.length > 0) throw new DumpOrderError(`tables reference themselves (no safe INSERT order): ${selfReferencing.join(', ')}`);
    const order = foreignKeyOrder(tables.map((t) => t.name), references);
    const byName = new Map(tables.map((t) => [t.name, t]));
    await write(header(schema, order));
    const summary: DumpSummary = { tables: [] };
    for (const name of order) {
      const table = byName.get(name)!;
      const target = `${quoteIdent(schema)}.${quoteIdent(name)}`;
      const columnList = table.columns.map(quoteIdent).join(', ');
      const select = table.columns.map((c) => `${quoteIdent(c)}::text`).join(', ');
      const orderBy = table.primaryKey.length > 0 ? ` ORDER BY ${table.primaryKey.map(quoteIdent).join(', ')}` : '';
      await client.query(`DECLARE db_dump_rows NO SCROLL CURSOR FOR SELECT ${select} FROM ${target}${orderBy}`);
      let rows = 0;
      await write(`\n-- ${name}\n`);
      for (;;) {
        const batch = await client.query<string[]>({ text: `FETCH ${batchRows} FROM db_dump_rows`, rowMode: 'array' });
        if (batch.rows.length === 0) break;
        rows += batch.rows.length;
        const values = batch.rows.map((row) => `(${(row as (string | null)[]).map(sqlLiteral).join(', ')})`).join(',\n');
        await write(`INSERT INTO ${target} (${columnList}) VALUES\n${values};\n`);
      }
      await client.query('CLOSE db_dump_rows');
      summary.tables.push({ name, rows });
    }
    await write('\nCOMMIT;\n');
    return summary;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
  }
}
