/**
 * Daily study reminders: the per-user setting (study_reminders), the reminder pass a
 * Temporal Schedule runs (who has due cards now → one study_reminder_outbox row per user and local
 * day), and reading the outbox. What a reminder does here: since no mail or push service exists, it
 * is that outbox row, listed by `GET /study/reminders/outbox` (a delivery service would read the
 * same rows and set `read_at`).
 */
import type { PrismaClient } from '@prisma/client';
import type { DbClient } from '../../db/client';
import { reminderDueDate, type ReminderPassResult, type ReminderSetting } from '../../domain/study/reminders';
import { ST_ERRORS } from '../../domain/study/errors';

export type { ReminderPassResult } from '../../domain/study/reminders';

/** A user's reminder setting as the API shows it. */
export interface ReminderView {
  localTime: string;
  timeZone: string;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Creates or replaces the caller's reminder. Without `timeZone` the user's own (users.time_zone)
 * is used. Validation of `localTime` (`HH:MM`) and `timeZone` (IANA) is the API's (zod).
 */
export async function putReminder(db: PrismaClient, userId: string, input: { localTime: string; timeZone?: string; enabled?: boolean }): Promise<ReminderView> {
  const timeZone = input.timeZone ?? (await db.user.findUnique({ where: { id: userId }, select: { timeZone: true } }))?.timeZone ?? 'UTC';
  const data = { localTime: input.localTime, timeZone, enabled: input.enabled ?? true };
  return db.studyReminder.upsert({ where: { userId }, create: { userId, ...data }, update: data });
}

/** The caller's reminder. @throws DomainError not-found NOT_FOUND when none is set. */
export async function getReminder(db: DbClient, userId: string): Promise<ReminderView> {
  const r = await db.studyReminder.findUnique({ where: { userId } });
  if (!r) throw ST_ERRORS.problem('NOT_FOUND', 'no study reminder is set');
  return r;
}

/** Removes the caller's reminder (its outbox rows stay). @returns false when there was none. */
export async function deleteReminder(db: DbClient, userId: string): Promise<boolean> {
  const { count } = await db.studyReminder.deleteMany({ where: { userId } });
  return count > 0;
}

/**
 * One reminder pass at `now`: walks the enabled reminders in batches of `batchSize` (by user id);
 * for those whose local time today has come ({@link reminderDueDate}) and whose outbox has no row
 * for that local date, counts the user's due cards (live, progress due ≤ now or never reviewed) and
 * writes one outbox row with the count when it is positive. Idempotent: the (user, local date)
 * unique key makes a repeated or concurrent pass write nothing twice; a user without due cards is
 * checked again by the next pass of the same day.
 */
export async function runReminderPass(db: PrismaClient, opts: { now?: Date; batchSize: number }): Promise<ReminderPassResult> {
  const now = opts.now ?? new Date();
  const result: ReminderPassResult = { scanned: 0, dueToday: 0, reminded: 0 };
  let after: string | undefined;
  for (;;) {
    const batch: ReminderSetting[] = await db.studyReminder.findMany({
      where: { enabled: true, ...(after ? { userId: { gt: after } } : {}) },
      orderBy: { userId: 'asc' },
      take: opts.batchSize,
      select: { userId: true, localTime: true, timeZone: true, enabled: true },
    });
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.userId;
    result.scanned += batch.length;

    const due = batch.flatMap((r) => {
      const date = reminderDueDate(r, now);
      return date ? [{ userId: r.userId, date }] : [];
    });
    if (due.length > 0) {
      const sent = await db.studyReminderOutbox.findMany({
        where: { OR: due.map((d) => ({ userId: d.userId, localDate: new Date(`${d.date}T00:00:00Z`) })) },
        select: { userId: true },
      });
      const already = new Set(sent.map((s) => s.userId));
      const open = due.filter((d) => !already.has(d.userId));
      result.dueToday += open.length;
      if (open.length > 0) {
        const counts = await dueCounts(db, open.map((d) => d.userId), now);
        const rows = open.flatMap((d) => {
          const n = counts.get(d.userId) ?? 0;
          return n > 0 ? [{ userId: d.userId, localDate: new Date(`${d.date}T00:00:00Z`), dueCount: n }] : [];
        });
        if (rows.length > 0) result.reminded += (await db.studyReminderOutbox.createMany({ data: rows, skipDuplicates: true })).count;
      }
    }
    if (batch.length < opts.batchSize) break;
  }
  return result;
}

/** Due cards per user at `now`, one grouped query. */
async function dueCounts(db: DbClient, userIds: string[], now: Date): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<{ user_id: string; n: number }[]>`
    SELECT c.user_id::text AS user_id, count(*)::int AS n
    FROM study_memo_cards c LEFT JOIN study_memo_card_progress p ON p.card_id = c.id
    WHERE c.user_id = ANY(${userIds}::uuid[]) AND c.deleted_at IS NULL AND COALESCE(p.due, c.created_at) <= ${now}
    GROUP BY c.user_id`;
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

/** One outbox row as the API shows it. */
export interface OutboxItem {
  id: string;
  localDate: string;
  dueCount: number;
  createdAt: Date;
  readAt: Date | null;
}

const toItem = (r: { id: string; localDate: Date; dueCount: number; createdAt: Date; readAt: Date | null }): OutboxItem => ({
  id: r.id,
  localDate: r.localDate.toISOString().slice(0, 10),
  dueCount: r.dueCount,
  createdAt: r.createdAt,
  readAt: r.readAt,
});

/** The caller's outbox rows, newest first, after keyset position `after`; `unreadOnly` hides read ones. Fetches `limit + 1` (see pageOf). */
export async function listOutbox(
  db: DbClient,
  q: { userId: string; limit: number; unreadOnly: boolean; after?: { createdAt: Date; id: string } },
): Promise<(OutboxItem & { createdAt: Date })[]> {
  const rows = await db.studyReminderOutbox.findMany({
    where: {
      userId: q.userId,
      ...(q.unreadOnly ? { readAt: null } : {}),
      ...(q.after ? { OR: [{ createdAt: { lt: q.after.createdAt } }, { createdAt: q.after.createdAt, id: { lt: q.after.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
  });
  return rows.map(toItem);
}

/** Marks one of the caller's outbox rows read (the first time only; `readAt` never moves). @throws DomainError not-found NOT_FOUND. */
export async function markOutboxRead(db: PrismaClient, userId: string, id: string, now = new Date()): Promise<OutboxItem> {
  await db.studyReminderOutbox.updateMany({ where: { id, userId, readAt: null }, data: { readAt: now } });
  const row = await db.studyReminderOutbox.findFirst({ where: { id, userId } });
  if (!row) throw ST_ERRORS.problem('NOT_FOUND', `reminder ${id} not found`);
  return toItem(row);
}
