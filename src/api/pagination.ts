/**
 * Keyset (cursor) pagination over `(createdAt, id)`, newest first, for list routes of any family.
 * The cursor is opaque to clients: base64url of `{ k: <list>, t: <createdAt ISO>, i: <id> }`, the
 * last item of the page. A page is "rows strictly after the cursor in (createdAt DESC, id DESC)
 * order", so rows inserted meanwhile (newer, or elsewhere in the order) never shift a later page:
 * no duplicates, no gaps among the rows that existed when the walk began. The cursor is not a
 * secret and grants nothing: every list query stays scoped by the caller's membership.
 */
import { z } from 'zod';
import { CORE_ERRORS } from '../core/errors';

/** Page size bounds of every cursor-paginated list. */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** `?limit=&cursor=` of a cursor-paginated list. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default)
    .describe(`page size, ${PAGE_LIMIT.min}..${PAGE_LIMIT.max}`),
  cursor: z.string().min(1).max(512).optional().describe('`nextCursor` of the previous page; absent for the first page'),
});

/** A position in a list: the last row of a page. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

const Payload = z.strictObject({ k: z.string(), t: z.iso.datetime(), i: z.uuid() });

/** The opaque cursor after `row` in list `list` (e.g. `ai-runs`). */
export function encodeCursor(list: string, row: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ k: list, t: row.createdAt.toISOString(), i: row.id }), 'utf8').toString('base64url');
}

/**
 * The position a cursor of list `list` names.
 * @throws DomainError INVALID_CURSOR (400) for anything {@link encodeCursor} did not make for this list.
 */
export function decodeCursor(list: string, cursor: string): KeysetPosition {
  const invalid = () => CORE_ERRORS.problem('INVALID_CURSOR', 'cursor is not a nextCursor of this list; start again without a cursor');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: z.infer<typeof Payload>;
  try {
    parsed = Payload.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  if (parsed.k !== list) throw invalid();
  return { createdAt: new Date(parsed.t), id: parsed.i };
}

/** Prisma `where` of the rows after `pos` in (createdAt DESC, id DESC) order; `{}` for the first page. */
export function afterPosition(pos: KeysetPosition | undefined) {
  return pos ? { OR: [{ createdAt: { lt: pos.createdAt } }, { createdAt: pos.createdAt, id: { lt: pos.id } }] } : {};
}

/** The order of every page: newest first, id as the tie-break. */
export const NEWEST_FIRST = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * A page from `rows` fetched with `take: limit + 1` in {@link NEWEST_FIRST} order: the first
 * `limit` rows and the cursor after the last of them (null when there is no further row).
 */
export function pageOf<T extends KeysetPosition>(list: string, rows: readonly T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(list, last) : null };
}

