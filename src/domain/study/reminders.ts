/**
 * Daily study reminders: a user's reminder is a local time of day (`HH:MM`, 24 h) in
 * an IANA time zone. A reminder pass at instant `now` reminds the users whose local time today has
 * reached their reminder time and who have due cards; "reminds" means one study_reminder_outbox row
 * per user and local day (no mail or push service exists; the API reads the outbox). Pure, no I/O
 * (Intl only).
 */

/** `HH:MM`, 00:00 … 23:59. */
export const LOCAL_TIME_RE = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    if (formats.size > 1000) formats.clear();
    formats.set(timeZone, f);
  }
  return f;
}

/** True for a time zone this runtime knows (IANA names such as `Asia/Seoul`, and `UTC`). */
export function isTimeZone(value: string): boolean {
  if (!value || value.length > 64) return false;
  try {
    formatFor(value);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of `instant` in `timeZone`: local date `YYYY-MM-DD` and time `HH:MM`. @throws RangeError for an unknown zone. */
export function localClock(instant: Date, timeZone: string): { date: string; time: string } {
  const parts: Record<string, string> = {};
  for (const p of formatFor(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** A reminder setting as the pass reads it. */
export interface ReminderSetting {
  userId: string;
  localTime: string;
  timeZone: string;
  enabled: boolean;
}

/**
 * The local date whose reminder is due at `now`, or undefined: enabled, and the local time in its
 * zone is at or past `localTime` (so a pass that runs late, even hours late, still reminds the same
 * day; the next local day starts over). An unknown zone is never due.
 */
export function reminderDueDate(setting: ReminderSetting, now: Date): string | undefined {
  if (!setting.enabled || !isTimeZone(setting.timeZone)) return undefined;
  const clock = localClock(now, setting.timeZone);
  return clock.time >= setting.localTime ? clock.date : undefined;
}
/** Result of one reminder pass (src/services/study/reminders.ts). */
export interface ReminderPassResult {
  /** Enabled reminders looked at. */
  scanned: number;
  /** Of those, reminders whose local time had come today and that had no outbox row for that day yet. */
  dueToday: number;
  /** Outbox rows written (users with due cards). */
  reminded: number;
}

