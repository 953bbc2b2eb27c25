/** PO-5/PO-6: the callback body schema (strict, snake_case) and the result key's scope rules. */
import { checkResultScope, parseCallbackAttempt, ScrapeCallbackBodySchema } from '../../../src/domain/portal/callback';

const JOB = '0b7e5c1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d';
const OTHER = '1c8f6d2b-3e4a-4b5c-9d7e-8f9a0b1c2d3e';
const scope = { bucket: 'portal-results', prefix: 'portal-results/' };

describe('checkResultScope', () => {
  test('a key of the job in the configured bucket and prefix names its attempt', () => {
    expect(checkResultScope(scope, JOB, 'portal-results', `portal-results/${JOB}/1.json`)).toEqual({ ok: true, attempt: 1 });
    expect(checkResultScope(scope, JOB, 'portal-results', `portal-results/${JOB}/12.json`)).toEqual({ ok: true, attempt: 12 });
  });

  test.each([
    ['another bucket', 'other-bucket', `portal-results/${JOB}/1.json`, 'bucket'],
    ['outside the prefix', 'portal-results', `elsewhere/${JOB}/1.json`, 'prefix'],
    ['no prefix at all', 'portal-results', `${JOB}/1.json`, 'prefix'],
    ["another job's scope", 'portal-results', `portal-results/${OTHER}/1.json`, 'job'],
    ['a job id that only starts like this one', 'portal-results', `portal-results/${JOB}x/1.json`, 'job'],
    ['a path escaping the scope', 'portal-results', `portal-results/${JOB}/../${OTHER}/1.json`, 'shape'],
    ['a nested key', 'portal-results', `portal-results/${JOB}/a/1.json`, 'shape'],
    ['attempt zero', 'portal-results', `portal-results/${JOB}/0.json`, 'shape'],
    ['not json', 'portal-results', `portal-results/${JOB}/1.txt`, 'shape'],
  ])('%s is refused', (_what, bucket, key, violation) => {
    expect(checkResultScope(scope, JOB, bucket, key)).toEqual({ ok: false, violation });
  });

  test('an empty prefix scopes by the job id alone', () => {
    expect(checkResultScope({ bucket: 'b1', prefix: '' }, JOB, 'b1', `${JOB}/3.json`)).toEqual({ ok: true, attempt: 3 });
  });
});

describe('ScrapeCallbackBodySchema', () => {
  const ok = { job_id: JOB, status: 'SUCCEEDED', result_s3_bucket: 'portal-results', result_s3_key: `portal-results/${JOB}/1.json`, result_sha256: 'a'.repeat(64), scraped_at: '2026-12-01T15:00:00Z' };

  test('a success and a failure parse', () => {
    expect(ScrapeCallbackBodySchema.parse(ok)).toEqual(ok);
    expect(ScrapeCallbackBodySchema.parse({ ...ok, result_sha256: null }).status).toBe('SUCCEEDED');
    const failed = { job_id: JOB, status: 'FAILED', error_code: 'PORTAL_CREDENTIALS_INVALID', error_message: 'wrong password' };
    expect(ScrapeCallbackBodySchema.parse(failed)).toEqual(failed);
  });

  test.each([
    ['an unknown field', { ...ok, extra: 1 }],
    ['camelCase keys', { jobId: JOB, status: 'SUCCEEDED' }],
    ['an upper-case checksum', { ...ok, result_sha256: 'A'.repeat(64) }],
    ['a short checksum', { ...ok, result_sha256: 'a'.repeat(63) }],
    ['a status of neither kind', { ...ok, status: 'DONE' }],
    ['a job id that is no UUID', { ...ok, job_id: 'job-1' }],
    ['a scraped_at that is no timestamp', { ...ok, scraped_at: 'yesterday' }],
  ])('%s is refused', (_what, body) => {
    expect(ScrapeCallbackBodySchema.safeParse(body).success).toBe(false);
  });
});

test('X-Callback-Attempt: absent, a positive integer, or malformed', () => {
  expect(parseCallbackAttempt(undefined)).toBeUndefined();
  expect(parseCallbackAttempt('2')).toBe(2);
  for (const bad of ['0', '-1', '1.5', 'x', '', ['1', '2']]) expect(parseCallbackAttempt(bad)).toBe('malformed');
});
