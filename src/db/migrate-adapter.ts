import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/** OID of PostgreSQL's internal one-byte `"char"` type (pg_constraint.contype, pg_class.relkind …). */
const CHAR_OID = 18;
/** OID of `text`. */
const TEXT_OID = 25;

/**
 * `ColumnTypeEnum.Character` of @prisma/driver-adapter-utils: the engine reads such a column as one
 * character, as its native PostgreSQL driver reads `"char"`.
 */
const CHARACTER_COLUMN = 6;

type Fields = { fields?: Array<{ dataTypeID: number }>; rows?: unknown[] };

/**
 * Positions of the `"char"` columns of a result, keyed by its `rows` array: adapter-pg passes that
 * array on as its result's `rows`, so {@link withCharColumns} finds the positions again there.
 */
const charColumns = new WeakMap<object, number[]>();

/** Reports `"char"` result columns as `text`, in place, and remembers where they are; results may be one result or an array. */
function charAsText<T>(result: T): T {
  for (const r of (Array.isArray(result) ? result : [result]) as Fields[]) {
    const positions: number[] = [];
    (r?.fields ?? []).forEach((f, i) => {
      if (f.dataTypeID !== CHAR_OID) return;
      f.dataTypeID = TEXT_OID;
      positions.push(i);
    });
    if (positions.length > 0 && Array.isArray(r.rows)) charColumns.set(r.rows, positions);
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

type Connected = Awaited<ReturnType<PrismaPg['connect']>>;
type Queryable = Pick<Connected, 'queryRaw'>;

/**
 * `q` (a connection or one of its transactions) answering the `"char"` columns that
 * {@link CharAsTextClient} passed as text with the character column type. The schema engine reads
 * `pg_constraint.contype` with a character getter and panics on a text value: every CHECK or
 * exclusion constraint in the database made `migrate diff --from-migrations` crash
 * ("RuntimeError: unreachable"). The foreign-key actions it reads either way.
 */
function withCharColumns<Q extends Queryable>(q: Q): Q {
  const queryRaw = q.queryRaw.bind(q);
  q.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumns.get(result.rows) ?? []) result.columnTypes[i] = CHARACTER_COLUMN as (typeof result.columnTypes)[number];
    return result;
  };
  return q;
}

/** `conn` and every transaction it starts going through {@link withCharColumns}. */
function withCharConnection(conn: Connected): Connected {
  const startTransaction = conn.startTransaction.bind(conn);
  conn.startTransaction = async (isolationLevel) => withCharColumns(await startTransaction(isolationLevel));
  return withCharColumns(conn);
}

/** adapter-pg's factory whose connections, shadow database included, go through {@link withCharConnection}. */
class MigrateAdapterFactory extends PrismaPg {
  override async connect(): Promise<Connected> {
    return withCharConnection(await super.connect());
  }

  override async connectToShadowDb(): Promise<Connected> {
    return withCharConnection(await super.connectToShadowDb());
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
 * over pools of {@link CharAsTextClient}, `"char"` columns typed as characters
 * ({@link withCharColumns}), with an optional caller-owned shadow database. Not used by the
 * application's own client (src/db/client.ts).
 */
export function createMigrateAdapter(opts: MigrateAdapterOptions): PrismaPg {
  const adapter = new MigrateAdapterFactory(pool(opts.url), { disposeExternalPool: true });
  const { shadowUrl } = opts;
  if (shadowUrl) adapter.connectToShadowDb = () => new MigrateAdapterFactory(pool(shadowUrl), { disposeExternalPool: true }).connect();
  return adapter;
}
