/**
 * AR-5 decision rules (src/domain/ai-runs/decision-rules.ts), the run ETag (src/domain/ai-runs/etag.ts), If-Match
 * parsing (src/api/if-match.ts), the version precondition of the route and the list cursor
 * (src/api/pagination.ts): pure, no server.
 */
import { decodeCursor, encodeCursor, pageOf } from '../../../src/api/pagination';
import { parseIfMatch } from '../../../src/api/if-match';
import { requestedVersions } from '../../../src/api/routes/ai-runs/decisions';
import { DomainError } from '../../../src/core/domain-error';
import { assembleErrorRegistry } from '../../../src/core/errors';
import { resolveProblem } from '../../../src/core/problems';
import {
  duplicateCandidateIds,
  planDecisions,
  StaleRunVersionError,
  taskStatusFor,
  type CandidateFacts,
  type RequestedDecision,
  type RunFacts,
} from '../../../src/domain/ai-runs/decision-rules';
import { aiRunEtag, parseAiRunEtag } from '../../../src/domain/ai-runs/etag';
import { AR_ERRORS } from '../../../src/domain/ai-runs/errors';

const PROBLEMS = assembleErrorRegistry([AR_ERRORS]).problems;

/** `<HTTP status>:<code>` of a DomainError, the status as the API answers it (from the error registry). */
const answered = (err: DomainError) => `${resolveProblem(PROBLEMS, err)?.status ?? 'unregistered'}:${err.code}`;

const RUN = '11111111-1111-4111-8111-111111111111';
const OTHER_RUN = '22222222-2222-4222-8222-222222222222';
const LATEST = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const EARLIER = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const run = (over: Partial<RunFacts> = {}): RunFacts => ({ id: RUN, status: 'SUCCEEDED', version: 3, latestAttemptId: LATEST, ...over });
const candidate = (n: number, over: Partial<CandidateFacts> = {}): CandidateFacts => ({
  id: id(n), runId: RUN, attemptId: LATEST, blocked: false, decided: null, ...over,
});
const facts = (...cs: CandidateFacts[]) => new Map(cs.map((c) => [c.id, c]));
const adopt = (n: number): RequestedDecision => ({ candidateId: id(n), decision: 'ADOPT' });
const discard = (n: number): RequestedDecision => ({ candidateId: id(n), decision: 'DISCARD' });

/** `<status>:<code>` of the DomainError `fn` throws (fails when it throws none). */
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return answered(err);
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('planDecisions', () => {
  it('applies new decisions in request order when the version is current', () => {
    const plan = planDecisions(run(), [adopt(1), discard(2)], facts(candidate(1), candidate(2)), [3]);
    expect(plan).toEqual({ replay: false, toApply: [adopt(1), discard(2)] });
  });

  it('a stale version refuses with the current version', () => {
    let err: unknown;
    try {
      planDecisions(run({ version: 5 }), [adopt(1)], facts(candidate(1)), [3, 4]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StaleRunVersionError);
    expect(err).toMatchObject({ code: 'AI_RUN_VERSION_CONFLICT', currentVersion: 5 });
    expect(answered(err as DomainError)).toBe('409:AI_RUN_VERSION_CONFLICT');
    expect(codeOf(() => planDecisions(run(), [adopt(1)], facts(candidate(1)), []))).toBe('409:AI_RUN_VERSION_CONFLICT');
  });

  it('a pure replay passes whatever version it names and writes nothing', () => {
    const decided = facts(candidate(1, { decided: 'ADOPT' }), candidate(2, { decided: 'DISCARD' }));
    expect(planDecisions(run({ version: 9 }), [adopt(1), discard(2)], decided, [3])).toEqual({ replay: true, toApply: [] });
    // even once the run's own state would refuse new decisions (nothing new is asked)
    expect(planDecisions(run({ version: 9, latestAttemptId: 'x' }), [adopt(1)], decided, [])).toEqual({ replay: true, toApply: [] });
  });

  it('a partial replay applies only the new decisions, and needs the current version', () => {
    const cs = facts(candidate(1, { decided: 'ADOPT' }), candidate(2));
    expect(planDecisions(run(), [adopt(1), discard(2)], cs, [3])).toEqual({ replay: false, toApply: [discard(2)] });
    expect(codeOf(() => planDecisions(run(), [adopt(1), discard(2)], cs, [2]))).toBe('409:AI_RUN_VERSION_CONFLICT');
  });

  it.each(['QUEUED', 'RUNNING', 'RETRYING', 'FAILED'] as const)('a %s run cannot be decided (422 AI_RUN_NOT_SUCCEEDED)', (status) => {
    expect(codeOf(() => planDecisions(run({ status }), [adopt(1)], facts(candidate(1)), [3]))).toBe('422:AI_RUN_NOT_SUCCEEDED');
  });

  it('refuses candidates of another run or unknown ones (CANDIDATE_NOT_IN_RUN)', () => {
    expect(codeOf(() => planDecisions(run(), [adopt(1)], facts(candidate(1, { runId: OTHER_RUN })), [3]))).toBe('422:CANDIDATE_NOT_IN_RUN');
    expect(codeOf(() => planDecisions(run(), [adopt(1), adopt(7)], facts(candidate(1)), [3]))).toBe('422:CANDIDATE_NOT_IN_RUN');
  });

  it('a recorded decision is final: DISCARD then ADOPT and ADOPT then DISCARD are refused', () => {
    expect(codeOf(() => planDecisions(run(), [adopt(1)], facts(candidate(1, { decided: 'DISCARD' })), [3]))).toBe('422:CANDIDATE_ALREADY_DISCARDED');
    expect(codeOf(() => planDecisions(run(), [discard(1)], facts(candidate(1, { decided: 'ADOPT' })), [3]))).toBe('422:CANDIDATE_ALREADY_ADOPTED');
  });

  it('a candidate of an earlier attempt is superseded, for either decision', () => {
    const old = facts(candidate(1, { attemptId: EARLIER }));
    expect(codeOf(() => planDecisions(run(), [adopt(1)], old, [3]))).toBe('422:CANDIDATE_SUPERSEDED');
    expect(codeOf(() => planDecisions(run(), [discard(1)], old, [3]))).toBe('422:CANDIDATE_SUPERSEDED');
  });

  it('an AR-9 blocked candidate may be discarded but not adopted', () => {
    const blocked = facts(candidate(1, { blocked: true }));
    expect(codeOf(() => planDecisions(run(), [adopt(1)], blocked, [3]))).toBe('422:CANDIDATE_BLOCKED');
    expect(planDecisions(run(), [discard(1)], blocked, [3]).toApply).toEqual([discard(1)]);
  });

  it('one refused decision refuses the whole request (the first in request order names the code)', () => {
    const cs = facts(candidate(1), candidate(2, { blocked: true }), candidate(3, { decided: 'DISCARD' }));
    expect(codeOf(() => planDecisions(run(), [adopt(1), adopt(2), adopt(3)], cs, [3]))).toBe('422:CANDIDATE_BLOCKED');
    expect(codeOf(() => planDecisions(run(), [adopt(1), adopt(3), adopt(2)], cs, [3]))).toBe('422:CANDIDATE_ALREADY_DISCARDED');
  });
});

describe('taskStatusFor and duplicateCandidateIds', () => {
  it('NEEDS_INFO while slots are missing, else READY_FOR_REVIEW', () => {
    expect(taskStatusFor(['dueDate'])).toBe('NEEDS_INFO');
    expect(taskStatusFor([])).toBe('READY_FOR_REVIEW');
  });

  it('names every repeat after its first occurrence, case-insensitively', () => {
    const reqs = [{ candidateId: id(1) }, { candidateId: id(2) }, { candidateId: id(1).toUpperCase() }, { candidateId: id(2) }];
    expect(duplicateCandidateIds(reqs)).toEqual([
      { index: 2, firstIndex: 0, candidateId: id(1).toUpperCase() },
      { index: 3, firstIndex: 1, candidateId: id(2) },
    ]);
    expect(duplicateCandidateIds([{ candidateId: id(1) }, { candidateId: id(2) }])).toEqual([]);
  });
});

describe('run ETag and If-Match', () => {
  it('the ETag is strong and round-trips', () => {
    const tag = aiRunEtag(RUN, 12);
    expect(tag).toBe(`"ai-run-${RUN}-v12"`);
    expect(parseAiRunEtag(tag)).toEqual({ runId: RUN, version: 12 });
    expect(parseAiRunEtag(`W/${tag}`)).toBeUndefined();
    expect(parseAiRunEtag(`"${RUN}"`)).toBeUndefined();
    expect(parseAiRunEtag('"ai-run-x-v1"')).toBeUndefined();
    expect(parseAiRunEtag(`"${RUN}:v12"`)).toBeUndefined();
  });

  it('parses *, lists (with commas inside tags and empty members) and weak tags', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('*')).toEqual({ kind: 'any' });
    expect(parseIfMatch('"a", W/"b" ,, "c,d"')).toEqual({ kind: 'tags', strong: ['"a"', '"c,d"'], weakListed: true });
    expect(parseIfMatch(['"a"', '"b"'])).toEqual({ kind: 'tags', strong: ['"a"', '"b"'], weakListed: false });
  });

  it.each(['', 'abc', '"a" "b"', '"a', '*, "a"', 'W/a', '"a"x'])('%j is malformed', (header) => {
    expect(parseIfMatch(header)).toBe('malformed');
  });
});

describe('requestedVersions (the route precondition)', () => {
  const status = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof DomainError) return answered(err);
      throw err;
    }
    return 'ok';
  };

  it('If-Match names versions of this run only, strongly', () => {
    expect(requestedVersions(RUN, aiRunEtag(RUN, 3), undefined)).toEqual({ source: 'if-match', versions: [3] });
    expect(requestedVersions(RUN, `${aiRunEtag(OTHER_RUN, 3)}, W/${aiRunEtag(RUN, 4)}`, undefined)).toEqual({ source: 'if-match', versions: [] });
    expect(requestedVersions(RUN.toUpperCase(), aiRunEtag(RUN, 3), undefined)).toEqual({ source: 'if-match', versions: [3] });
  });

  it('the body version when there is no If-Match (or If-Match: *)', () => {
    expect(requestedVersions(RUN, undefined, 7)).toEqual({ source: 'body', versions: [7] });
    expect(requestedVersions(RUN, '*', 7)).toEqual({ source: 'body', versions: [7] });
  });

  it('no version at all → 428; a malformed If-Match → 400; disagreeing If-Match and body → 400', () => {
    expect(status(() => requestedVersions(RUN, undefined, undefined))).toBe('428:PRECONDITION_REQUIRED');
    expect(status(() => requestedVersions(RUN, '*', undefined))).toBe('428:PRECONDITION_REQUIRED');
    expect(status(() => requestedVersions(RUN, 'v3', undefined))).toBe('400:VALIDATION_FAILED');
    expect(status(() => requestedVersions(RUN, aiRunEtag(RUN, 3), 4))).toBe('400:CONFLICTING_PRECONDITIONS');
    expect(status(() => requestedVersions(RUN, aiRunEtag(RUN, 3), 3))).toBe('ok');
  });
});

describe('list cursors', () => {
  const row = (ms: number, n: number) => ({ createdAt: new Date(ms), id: id(n) });

  it('round-trips a position to the millisecond, per list', () => {
    const pos = row(Date.UTC(2026, 11, 1, 12, 0, 0, 123), 5);
    expect(decodeCursor('ai-runs', encodeCursor('ai-runs', pos))).toEqual(pos);
  });

  it.each([
    ['garbage', 'not base64url!'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['wrong shape', Buffer.from(JSON.stringify({ k: 'ai-runs', t: 'yesterday', i: 'x' })).toString('base64url')],
    ['extra fields', Buffer.from(JSON.stringify({ k: 'ai-runs', t: '2026-12-01T00:00:00.000Z', i: id(1), x: 1 })).toString('base64url')],
    ['another list', encodeCursor('tasks', row(0, 1))],
  ])('refuses %s with 400 INVALID_CURSOR', (_name, cursor) => {
    expect(codeOf(() => decodeCursor('ai-runs', cursor))).toBe('400:INVALID_CURSOR');
  });

  it('a page of limit rows has a cursor at its last row only when a further row was fetched', () => {
    const rows = [row(3, 3), row(2, 2), row(1, 1)];
    const full = pageOf('ai-runs', rows, 2);
    expect(full.items).toEqual(rows.slice(0, 2));
    expect(decodeCursor('ai-runs', full.nextCursor!)).toEqual(rows[1]);
    expect(pageOf('ai-runs', rows, 3).nextCursor).toBeNull();
  });
});
