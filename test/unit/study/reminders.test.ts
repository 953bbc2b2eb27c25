/** Reminder timing: local wall clocks per IANA zone (DST included) and when a reminder is due. */
import { isTimeZone, LOCAL_TIME_RE, localClock, reminderDueDate } from '../../../src/domain/study/reminders';

const setting = (localTime: string, timeZone: string, enabled = true) => ({ userId: 'u', localTime, timeZone, enabled });

test('time zones and local times are validated', () => {
  expect(['Asia/Seoul', 'America/New_York', 'UTC', 'Europe/Berlin'].every(isTimeZone)).toBe(true);
  expect(['Mars/Olympus', '', 'Asia/Seoul; DROP TABLE', 'x'.repeat(100)].some(isTimeZone)).toBe(false);
  expect(['00:00', '08:30', '23:59'].every((t) => LOCAL_TIME_RE.test(t))).toBe(true);
  expect(['24:00', '8:30', '08:60', '08:30:00', ' 08:30'].some((t) => LOCAL_TIME_RE.test(t))).toBe(false);
});

test('the local clock of one instant in several zones, across a date line and DST', () => {
  const at = new Date('2026-12-01T23:30:00Z');
  expect(localClock(at, 'UTC')).toEqual({ date: '2026-12-01', time: '23:30' });
  expect(localClock(at, 'Asia/Seoul')).toEqual({ date: '2026-12-02', time: '08:30' });
  expect(localClock(at, 'America/Los_Angeles')).toEqual({ date: '2026-12-01', time: '15:30' });
  // New York in summer time (UTC-4) and in winter time (UTC-5)
  expect(localClock(new Date('2026-07-01T12:00:00Z'), 'America/New_York').time).toBe('08:00');
  expect(localClock(new Date('2026-12-01T12:00:00Z'), 'America/New_York').time).toBe('07:00');
});

test('a reminder is due from its local time until the local day ends', () => {
  const seoul = setting('08:30', 'Asia/Seoul');
  expect(reminderDueDate(seoul, new Date('2026-12-01T23:29:00Z'))).toBeUndefined(); // 08:29 in Seoul
  expect(reminderDueDate(seoul, new Date('2026-12-01T23:30:00Z'))).toBe('2026-12-02');
  expect(reminderDueDate(seoul, new Date('2026-12-02T14:59:00Z'))).toBe('2026-12-02'); // 23:59 in Seoul, a late pass
  expect(reminderDueDate(seoul, new Date('2026-12-02T15:00:00Z'))).toBeUndefined(); // 00:00 the next local day
  expect(reminderDueDate(setting('08:30', 'Asia/Seoul', false), new Date('2026-12-02T00:00:00Z'))).toBeUndefined();
  expect(reminderDueDate(setting('08:30', 'Mars/Olympus'), new Date('2026-12-02T00:00:00Z'))).toBeUndefined();
});
