/** The draft-ietf-httpapi-ratelimit-headers fields of src/api/rate-limit.ts. */
import { rateLimitHeaders } from '../../../src/api/rate-limit';

describe('rateLimitHeaders', () => {
  it('one policy: its quota and window, what is left and the seconds to reset', () => {
    expect(rateLimitHeaders([{ name: 'user', quota: 600, windowSeconds: 60, remaining: 12, resetSeconds: 30 }])).toEqual({
      'RateLimit-Policy': '"user";q=600;w=60',
      RateLimit: '"user";r=12;t=30',
    });
  });

  it('several policies are one list each, in the given order', () => {
    const h = rateLimitHeaders([
      { name: 'user', quota: 600, windowSeconds: 60, remaining: 599, resetSeconds: 60 },
      { name: 'company', quota: 120, windowSeconds: 60, remaining: 0, resetSeconds: 7 },
    ]);
    expect(h['RateLimit-Policy']).toBe('"user";q=600;w=60, "company";q=120;w=60');
    expect(h.RateLimit).toBe('"user";r=599;t=60, "company";r=0;t=7');
  });

  it('never a negative remaining or reset', () => {
    expect(rateLimitHeaders([{ name: 'ip', quota: 5, windowSeconds: 60, remaining: -3, resetSeconds: -1 }]).RateLimit).toBe('"ip";r=0;t=0');
  });
});
