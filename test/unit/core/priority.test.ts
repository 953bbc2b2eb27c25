/** Task-queue priority and fairness keys of workflow starts: the pure parts. */
import { TypedSearchAttributes } from '@temporalio/common';
import { parseFairnessWeights } from '../../../src/config/fairness';
import { SA_COMPANY_ID, SA_JOB_TYPE, SA_USER_ID } from '../../../src/core/contracts';
import { PRIORITY_KEYS, priorityOf, tenantFairnessKey, withFairness } from '../../../src/core/priority';

const COMPANY = '6f1c2a9e-1d7b-4c1e-9a3b-2f7e8d9c0a1b';
const USER = '0b9f6c1e-3a2d-4e5f-8a7b-6c5d4e3f2a1b';
const attrs = (pairs: Record<string, string>) =>
  new TypedSearchAttributes([
    { key: SA_JOB_TYPE, value: 'AI_RUN' },
    ...(pairs.company ? [{ key: SA_COMPANY_ID, value: pairs.company }] : []),
    ...(pairs.user ? [{ key: SA_USER_ID, value: pairs.user }] : []),
  ]);
const on = (weights: Record<string, number> = {}) => ({ enabled: true, weights: new Map(Object.entries(weights)) });

test('work classes order interactive before batch before maintenance on the 1 … 5 scale', () => {
  expect(PRIORITY_KEYS.interactive).toBeLessThan(PRIORITY_KEYS.batch);
  expect(PRIORITY_KEYS.batch).toBeLessThan(PRIORITY_KEYS.maintenance);
  for (const key of Object.values(PRIORITY_KEYS)) expect(key >= 1 && key <= 5).toBe(true);
  expect(priorityOf('batch')).toEqual({ priorityKey: PRIORITY_KEYS.batch });
});

test('the tenant key is the company when the start has one, else the user, else none', () => {
  expect(tenantFairnessKey(attrs({ company: COMPANY, user: USER }))).toBe(`company:${COMPANY}`);
  expect(tenantFairnessKey(attrs({ user: USER }))).toBe(`user:${USER}`);
  expect(tenantFairnessKey(attrs({}))).toBeUndefined();
  expect(tenantFairnessKey(undefined)).toBeUndefined();
  expect(tenantFairnessKey([{ key: SA_USER_ID, value: USER }])).toBe(`user:${USER}`);
  // Temporal refuses keys over 64 bytes: such a start keeps the default key rather than failing.
  expect(tenantFairnessKey(attrs({ user: 'ü'.repeat(30) }))).toBeUndefined();
});

test('withFairness adds the key and its configured weight, and keeps what the start named', () => {
  const interactive = priorityOf('interactive');
  expect(withFairness(on(), interactive, attrs({ user: USER }))).toEqual({ priorityKey: PRIORITY_KEYS.interactive, fairnessKey: `user:${USER}` });
  expect(withFairness(on({ [`company:${COMPANY}`]: 4 }), interactive, attrs({ company: COMPANY, user: USER }))).toEqual({
    priorityKey: PRIORITY_KEYS.interactive,
    fairnessKey: `company:${COMPANY}`,
    fairnessWeight: 4,
  });
  const named = { priorityKey: 5, fairnessKey: 'maintenance' };
  expect(withFairness(on(), named, attrs({ user: USER }))).toBe(named);
  expect(withFairness({ enabled: false, weights: new Map() }, interactive, attrs({ user: USER }))).toBe(interactive);
  expect(withFairness(on(), undefined, attrs({ user: USER }))).toEqual({ fairnessKey: `user:${USER}` });
});

test('TEMPORAL_FAIRNESS_WEIGHTS parses key=weight pairs and names the first bad one', () => {
  expect(parseFairnessWeights(undefined)).toEqual(new Map());
  expect(parseFairnessWeights(` company:${COMPANY}=4 , maintenance=0.5,`)).toEqual(new Map([[`company:${COMPANY}`, 4], ['maintenance', 0.5]]));
  for (const bad of ['user:x', '=2', 'user:x=0', 'user:x=1001', 'user:x=heavy', `${'k'.repeat(65)}=1`]) {
    expect(() => parseFairnessWeights(`maintenance=1,${bad}`)).toThrow(bad);
  }
});
