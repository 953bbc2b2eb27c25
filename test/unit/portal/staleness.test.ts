/** PO-9 the staleness verdict of a scrape result (src/services/portal/post-process.ts `staleness`), pure. */
import { staleness } from '../../../src/services/portal/post-process';

const at = (iso: string) => new Date(iso);
const stored = { dataAsOf: at('2026-12-02T09:00:00Z'), sourceJobCreatedAt: at('2026-12-02T08:59:50Z') };

test('no stored data: always applied', () => {
  expect(staleness(null, at('2020-01-01T00:00:00Z'), at('2026-12-02T10:00:00Z'))).toBeNull();
});

test('older than its own job, or than the stored data or the job that produced it: ignored', () => {
  expect(staleness(stored, at('2026-12-02T09:59:00Z'), at('2026-12-02T10:00:00Z'))).toBe('older-than-job');
  expect(staleness(stored, at('2026-12-02T08:59:55Z'), at('2026-12-02T08:59:00Z'))).toBe('older-than-snapshot');
  expect(staleness(stored, at('2026-12-02T08:59:40Z'), at('2026-12-02T08:59:00Z'))).toBe('older-than-snapshot');
  expect(staleness(stored, at('2026-12-02T10:00:01Z'), at('2026-12-02T10:00:00Z'))).toBeNull();
});

test('a stored data_as_of after the trusted bound (from the future) bounds nothing; the stored job still does', () => {
  const poisoned = { dataAsOf: at('2099-01-01T00:00:00Z'), sourceJobCreatedAt: at('2026-12-02T08:00:00Z') };
  const trusted = at('2026-12-02T10:05:00Z');
  expect(staleness(poisoned, at('2026-12-02T10:00:01Z'), at('2026-12-02T10:00:00Z'))).toBe('older-than-snapshot');
  expect(staleness(poisoned, at('2026-12-02T10:00:01Z'), at('2026-12-02T10:00:00Z'), trusted)).toBeNull();
  expect(staleness(poisoned, at('2026-12-02T07:00:00Z'), at('2026-12-02T06:00:00Z'), trusted)).toBe('older-than-snapshot');
  expect(staleness(stored, at('2026-12-02T08:59:55Z'), at('2026-12-02T08:59:00Z'), trusted)).toBe('older-than-snapshot');
});
