/** Instants from outside against the server clock (src/core/clock.ts). */
import { msBeyondClock, trustedUntil } from '../../../src/core/clock';

const NOW = Date.parse('2026-12-02T10:00:00.000Z');

describe('msBeyondClock', () => {
  it('is 0 for the past, now and anything within the tolerance', () => {
    expect(msBeyondClock(new Date('2020-01-01T00:00:00Z'), NOW, 300)).toBe(0);
    expect(msBeyondClock(new Date(NOW), NOW, 300)).toBe(0);
    expect(msBeyondClock(new Date(NOW + 300_000), NOW, 300)).toBe(0);
  });
  it('is how far beyond the tolerance an instant lies', () => {
    expect(msBeyondClock(new Date(NOW + 300_001), NOW, 300)).toBe(1);
    expect(msBeyondClock(new Date('2099-01-01T00:00:00Z'), NOW, 300)).toBe(Date.parse('2099-01-01T00:00:00Z') - NOW - 300_000);
    expect(msBeyondClock(new Date(NOW + 1), NOW, 0)).toBe(1);
  });
});

describe('trustedUntil', () => {
  it('is the server clock plus the tolerance: the last instant msBeyondClock accepts', () => {
    const until = trustedUntil(NOW, 300);
    expect(until.toISOString()).toBe('2026-12-02T10:05:00.000Z');
    expect(msBeyondClock(until, NOW, 300)).toBe(0);
    expect(msBeyondClock(new Date(until.getTime() + 1), NOW, 300)).toBe(1);
  });
});
