/** PO-2/DC-3: every transition of the portal_link_jobs state machine, allowed and forbidden. */
import { PORTAL_LINK_JOB_STATES, PORTAL_LINK_JOB_STATUSES, type PortalLinkJobStatus } from '../../../src/domain/portal/job-state';

const jobSourcesOf = PORTAL_LINK_JOB_STATES.sourcesOf;

const ALLOWED: readonly [PortalLinkJobStatus, PortalLinkJobStatus][] = [
  ['QUEUED', 'RUNNING'],
  ['QUEUED', 'FAILED'],
  ['RUNNING', 'POST_PROCESSING'],
  ['RUNNING', 'FAILED'],
  ['POST_PROCESSING', 'SUCCEEDED'],
  ['POST_PROCESSING', 'FAILED'],
];

const pairs = PORTAL_LINK_JOB_STATUSES.flatMap((from) => PORTAL_LINK_JOB_STATUSES.map((to) => [from, to] as [PortalLinkJobStatus, PortalLinkJobStatus]));
const allowed = ([a, b]: [PortalLinkJobStatus, PortalLinkJobStatus]) => ALLOWED.some(([x, y]) => x === a && y === b);

test('the statuses are exactly PO-2\'s five', () => {
  expect([...PORTAL_LINK_JOB_STATUSES].sort()).toEqual(['FAILED', 'POST_PROCESSING', 'QUEUED', 'RUNNING', 'SUCCEEDED']);
});

test.each(pairs)('%s → %s', (from, to) => {
  expect(PORTAL_LINK_JOB_STATES.canTransition(from, to)).toBe(allowed([from, to]));
});

test('the guards of the updates are the allowed sources', () => {
  expect(jobSourcesOf('QUEUED')).toEqual([]);
  expect(jobSourcesOf('RUNNING')).toEqual(['QUEUED']);
  expect(jobSourcesOf('POST_PROCESSING')).toEqual(['RUNNING']);
  expect(jobSourcesOf('SUCCEEDED')).toEqual(['POST_PROCESSING']);
  expect(jobSourcesOf('FAILED')).toEqual(['QUEUED', 'RUNNING', 'POST_PROCESSING']);
});

test('active and finished states', () => {
  expect(PORTAL_LINK_JOB_STATES.active).toEqual(['QUEUED', 'RUNNING', 'POST_PROCESSING']);
  expect(PORTAL_LINK_JOB_STATUSES.filter(PORTAL_LINK_JOB_STATES.isTerminal)).toEqual(['SUCCEEDED', 'FAILED']);
});
