/** AR-9 calendar arithmetic on `YYYY-MM-DD` days: working-day ranges, weekdays and month ends. */
import { daysBetween, endOfMonth, requestDay, workingDayRange, workingDays } from '../../../src/domain/ai-runs/calendar';

describe('workingDayRange', () => {
  it('counts working days and skips weekends', () => {
    expect(workingDayRange('2026-12-07', 3)).toEqual({ startDate: '2026-12-07', endDate: '2026-12-09' });
    expect(workingDayRange('2026-12-04', 2)).toEqual({ startDate: '2026-12-04', endDate: '2026-12-07' });
    expect(workingDayRange('2026-12-05', 1)).toEqual({ startDate: '2026-12-07', endDate: '2026-12-07' });
  });
});

describe('working days, month ends and the reference day', () => {
  it('counts Monday to Friday only, both ends included', () => {
    expect(workingDays('2026-12-04', '2026-12-07')).toBe(2); // Friday, (weekend), Monday
    expect(workingDays('2026-12-05', '2026-12-06')).toBe(0);
  });

  it('finds the last day of a month, leap years included', () => {
    expect(endOfMonth('2028-02-10')).toBe('2028-02-29');
    expect(endOfMonth('2026-12-01')).toBe('2026-12-31');
    expect(daysBetween('2026-12-31', '2027-01-01')).toBe(1);
  });

  it('reads the reference time as a calendar day of the time zone; an invalid time is a RangeError', () => {
    expect(requestDay('2026-12-01T16:00:00Z', 'Asia/Seoul')).toBe('2026-12-02');
    expect(requestDay('2026-12-01T16:00:00Z', 'UTC')).toBe('2026-12-01');
    expect(() => requestDay('not a time', 'UTC')).toThrow(RangeError);
  });
});
