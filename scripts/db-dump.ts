/**
 * `npm run db:dump -- --out FILE [--database-url URL]`: every row of the database's tables as
 * plain SQL INSERTs (src/db/dump.ts), over the ordinary PostgreSQL protocol, so it works against
 * the demo's embedded PGlite as against a real PostgreSQL. `DATABASE_URL` when no URL is given.
 * The file appears only complete (written beside it, then renamed). Restore into an empty database:
 *
 *   DATABASE_URL=<url> npx prisma migrate deploy && psql -v ON_ERROR_STOP=1 -f FILE <url>
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { dumpDatabase } from '../src/db/dump';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'database-url': { type: 'string' } } });
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (!values.out) throw new Error('usage: npm run db:dump -- --out FILE [--database-url URL] (default DATABASE_URL)');
  if (!url) throw new Error('no database: pass --database-url URL or set DATABASE_URL');
  const out = path.resolve(values.out);
  const partial = `${out}.partial-${process.pid}`;
  const file = createWriteStream(partial, { flags: 'wx' });
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const write = async (chunk: string) => {
      if (!file.write(chunk)) await once(file, 'drain');
    };
    const summary = await dumpDatabase(client, write);
    file.end();
    await once(file, 'finish');
    await rename(partial, out);
    const rows = summary.tables.reduce((n, t) => n + t.rows, 0);
    process.stdout.write(`wrote ${out}: ${rows} rows of ${summary.tables.length} tables\n`);
  } catch (err) {
    file.destroy();
    await rm(partial, { force: true });
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`db:dump: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
