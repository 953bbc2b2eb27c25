/**
 * SAN-9 / SAN-11 source material: which knowledge cards belong to a user's local calendar day, and
 * their text for the AI provider. The user's IANA time zone (users.time_zone) decides the day; the
 * conversion is PostgreSQL's (`AT TIME ZONE`), so "today" and the card window agree exactly.
 */
import type { DbClient } from '../../db/client';
import type { SourceCard } from '../../ai/scraps/answers';
import { cutToLength } from '../../core/text';

/** Characters of scrap content sent per card; bounds the prompt of a day with many long scraps. */
export const SOURCE_CONTENT_MAX_CHARS = 8_000;

/** A YYYY-MM-DD calendar date (validated by the API schema). */
export type IsoDate = string;

/** `YYYY-MM-DD` of a Prisma `@db.Date` value (stored at UTC midnight). */
export function isoDate(d: Date): IsoDate {
  return d.toISOString().slice(0, 10);
}

/** The Prisma `@db.Date` value of a `YYYY-MM-DD` date. */
export function dateValue(date: IsoDate): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** The user's time zone and today's date in it; null when the user does not exist. */
export async function userToday(db: DbClient, userId: string, opts: { forUpdate?: boolean } = {}): Promise<{ timeZone: string; today: IsoDate } | null> {
  const rows = opts.forUpdate
    ? await db.$queryRaw<{ time_zone: string; today: string }[]>`
        SELECT time_zone, to_char((now() AT TIME ZONE time_zone)::date, 'YYYY-MM-DD') AS today
        FROM users WHERE id = ${userId}::uuid FOR UPDATE`
    : await db.$queryRaw<{ time_zone: string; today: string }[]>`
        SELECT time_zone, to_char((now() AT TIME ZONE time_zone)::date, 'YYYY-MM-DD') AS today
        FROM users WHERE id = ${userId}::uuid`;
  const row = rows[0];
  return row ? { timeZone: row.time_zone, today: row.today } : null;
}

/**
 * Ids of the user's knowledge cards created on `date` in the user's time zone (local midnight to
 * the next local midnight, DST-aware), oldest first.
 */
export async function cardIdsForLocalDate(db: DbClient, userId: string, date: IsoDate): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT c.id::text AS id
    FROM knowledge_cards c JOIN users u ON u.id = c.user_id
    WHERE c.user_id = ${userId}::uuid
      AND c.created_at >= (${date}::date::timestamp AT TIME ZONE u.time_zone)
      AND c.created_at < ((${date}::date + 1)::timestamp AT TIME ZONE u.time_zone)
    ORDER BY c.created_at, c.id`;
  return rows.map((r) => r.id);
}

/**
 * Source text of the given cards, in the order of `cardIds`: title, summary and the scrap's
 * content (its refined content when SCRAP_REFINE has run), cut at {@link SOURCE_CONTENT_MAX_CHARS}
 * UTF-16 code units, never inside a surrogate pair.
 * Ids of deleted sources are skipped.
 */
export async function loadSourceCards(db: DbClient, cardIds: string[]): Promise<SourceCard[]> {
  const cards = await db.knowledgeCard.findMany({
    where: { id: { in: cardIds } },
    select: { id: true, title: true, summary: true, scrap: { select: { content: true, refinedContent: true } } },
  });
  const byId = new Map(cards.map((c) => [c.id, c]));
  return cardIds.flatMap((id) => {
    const c = byId.get(id);
    if (!c) return [];
    const content = cutToLength(c.scrap.refinedContent ?? c.scrap.content, SOURCE_CONTENT_MAX_CHARS);
    return [{ cardId: c.id, title: c.title, summary: c.summary, content }];
  });
}
