import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/** OID of PostgreSQL's internal one-byte `"char"` type (pg_constraint.contype, pg_class.relkind …). */
const CHAR_OID = 18;
/** OID of `text`. */
const TEXT_OID = 25;

type Fields = { fields?: Array<{ dataTypeID: number }> };

/** Reports `"char"` result columns as `text`, in place; results may be one result or an array. */
function charAsText<T>(result: T): T {
  for (const r of (Array.isArray(result) ? result : [result]) as Fields[]) {
    for (const f of r?.fields ?? []) if (f.dataTypeID === CHAR_OID) f.dataTypeID = TEXT_OID;
  }
  return result;
}

/**
 * A `pg.Client` whose results describe `"char"` columns as `text`. @prisma/adapter-pg (7.10.1)
 * maps no type for OID 18 and fails with "Column type 'char' could not be deserialized", and
 * Prisma's WASM schema engine selects such catalog columns whenever it reads a database's schema
 * (`migrate diff --from-migrations`, `migrate dev`). The values are one-character strings either way.
 */
class CharAsTextClient extends pg.Client {
  // pg's query() has callback, promise and submittable overloads; all are passed through.
  override query(...args: unknown[]): never {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => (last as (e: unknown, r: unknown) => void)(err, err ? res : charAsText(res));
    }
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    return (out instanceof Promise ? out.then(charAsText) : out) as never;
  }
}

export interface MigrateAdapterOptions {
  /** The database migrated or read (DATABASE_URL). */
  url: string;
  /**
   * An empty database the caller owns, used as the shadow database (SHADOW_DATABASE_URL). Without
   * it adapter-pg creates its own, which with a connection string replays onto `url` itself.
   */
  shadowUrl?: string;
}

function pool(url: string): pg.Pool {
  // A short idle timeout lets the CLI exit as soon as it is done instead of after pg's 10 s default.
  return new pg.Pool({ connectionString: url, idleTimeoutMillis: 500, Client: CharAsTextClient });
}

/**
 * The driver-adapter factory for the Prisma CLI's JS schema engine (prisma.config.ts): adapter-pg
 * over pools of {@link CharAsTextClient}, with an optional caller-owned shadow database. Not used
 * by the application's own client (src/db/client.ts).
 */
export function createMigrateAdapter(opts: MigrateAdapterOptions): PrismaPg {
  const adapter = new PrismaPg(pool(opts.url), { disposeExternalPool: true });
  const { shadowUrl } = opts;
  if (shadowUrl) adapter.connectToShadowDb = () => new PrismaPg(pool(shadowUrl), { disposeExternalPool: true }).connect();
  return adapter;
}
