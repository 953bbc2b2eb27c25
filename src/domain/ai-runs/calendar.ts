/**
 * Calendar arithmetic of the AI runs' key values (AR-9) on `YYYY-MM-DD` strings (UTC days, no time
 * zone): day offsets, weekdays, month ranges, working days, and the reference day of a request in its
 * time zone. Pure, no imports: safe in workflow code.
 */
const DAY_MS = 86_400_000;

function toDay(iso: string): number {
  return Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / DAY_MS;
}
function fromDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `iso` plus `n` days. */
export function addDays(iso: string, n: number): string {
  return fromDay(toDay(iso) + n);
}

/** Monday = 0 … Sunday = 6. */
export function weekdayOf(iso: string): number {
  return (new Date(toDay(iso) * DAY_MS).getUTCDay() + 6) % 7;
}

/** Whole days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  return toDay(b) - toDay(a);
}

/** The date of `y-m-d`, or undefined when it does not exist (Feb 30). */
export function makeDate(y: number, m: number, d: number): string | undefined {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d) || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== d) return undefined;
  return t.toISOString().slice(0, 10);
}

/** Last day of the month of `iso`. */
export function endOfMonth(iso: string): string {
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  return fromDay(Date.UTC(y, m, 1) / DAY_MS - 1);
}

/**
 * The calendar day of `now` in `timeZone` (IANA, e.g. `Asia/Seoul`), `YYYY-MM-DD`.
 * @throws RangeError for an unknown time zone.
 */
export function calendarDay(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/**
 * The reference day of a request: `referenceTime` (an ISO 8601 instant or a Date) as a calendar day
 * in `timeZone`. Runtime and guards resolve relative dates against the same day.
 * @throws RangeError for an invalid time or an unknown time zone.
 */
export function requestDay(referenceTime: string | Date, timeZone: string): string {
  const t = typeof referenceTime === 'string' ? new Date(referenceTime) : referenceTime;
  if (Number.isNaN(t.getTime())) throw new RangeError('invalid reference time');
  return calendarDay(t, timeZone);
}

/** Month and day without a year: the year that puts the date closest to `today`. */
export function nearestYear(today: string, m: number, d: number): string | undefined {
  const y = Number(today.slice(0, 4));
  let best: string | undefined;
  for (const year of [y - 1, y, y + 1]) {
    const date = makeDate(year, m, d);
    if (date && (best === undefined || Math.abs(daysBetween(today, date)) < Math.abs(daysBetween(today, best)))) best = date;
  }
  return best;
}

/** A month alone: its most recent occurrence not after today's month, as a first-to-last range. */
export function recentMonth(today: string, m: number): { startDate: string; endDate: string } | undefined {
  if (m < 1 || m > 12) return undefined;
  const y = Number(today.slice(0, 4));
  const year = m <= Number(today.slice(5, 7)) ? y : y - 1;
  const start = makeDate(year, m, 1) as string;
  return { startDate: start, endDate: endOfMonth(start) };
}

/** The month `offset` months from today's (0 = this month), as a first-to-last range. */
export function monthOffset(today: string, offset: number): { startDate: string; endDate: string } {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7)) - 1 + offset;
  const start = makeDate(y + Math.floor(m / 12), ((m % 12) + 12) % 12 + 1, 1) as string;
  return { startDate: start, endDate: endOfMonth(start) };
}

/**
 * Resolves a weekday (0 = Monday) relative to `today`: `week` undefined → next occurrence on or
 * after today; 0 → in the current week; 1 → next week; -1 → last week.
 */
export function resolveWeekday(today: string, weekday: number, week?: -1 | 0 | 1): string {
  const wd = weekdayOf(today);
  if (week === undefined) return addDays(today, (weekday - wd + 7) % 7);
  return addDays(today, week * 7 + weekday - wd);
}

/** Working days (Monday to Friday) from `start` to `end`, inclusive. */
export function workingDays(start: string, end: string): number {
  let n = 0;
  for (let d = start; d <= end; d = addDays(d, 1)) if (weekdayOf(d) < 5) n++;
  return n;
}

/** The range of `days` working days starting on `start` (a weekend start moves to Monday). */
export function workingDayRange(start: string, days: number): { startDate: string; endDate: string } {
  let d = start;
  while (weekdayOf(d) >= 5) d = addDays(d, 1);
  const startDate = d;
  let left = Math.max(1, Math.ceil(days)) - 1;
  while (left > 0) {
    d = addDays(d, 1);
    if (weekdayOf(d) < 5) left--;
  }
  return { startDate, endDate: d };
}
