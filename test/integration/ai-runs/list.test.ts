/**
 * AR-3 `GET /api/v1/companies/{companyId}/ai-runs` on the real PostgreSQL: newest first, cursor
 * pages with no duplicates or gaps while runs are being inserted (ties on createdAt included), the
 * status filter, bounds, an invalid cursor (400 problem+json), readers' roles and isolation.
 */
import { AiRunStatus } from '@prisma/client';
import { aiRunEtag } from '../../../src/domain/ai-runs/etag';
import { encodeCursor } from '../../../src/api/pagination';
import { seedCompany, seedRun } from '../../support/ai-runs-seed';
import { startStack, type Stack } from '../../support/stack';

jest.setTimeout(120_000);

let stack: Stack;
let a: Awaited<ReturnType<typeof seedCompany>>;
let b: Awaited<ReturnType<typeof seedCompany>>;
/** Company A's runs as seeded, newest first (createdAt DESC, id DESC). */
let seeded: { id: string; status: AiRunStatus; createdAt: Date }[];

const STATUSES = Object.values(AiRunStatus);
const BASE = Date.UTC(2026, 10, 1, 9, 0, 0);

beforeAll(async () => {
  stack = await startStack({ aiWorker: false });
  a = await seedCompany(stack, ['HR_MANAGER', 'VIEWER']);
  b = await seedCompany(stack, ['HR_MANAGER']);
  // 23 runs over 12 distinct instants: pairs share a createdAt, so the id tie-break matters.
  for (let i = 0; i < 23; i++) {
    await seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { status: STATUSES[i % STATUSES.length]!, createdAt: new Date(BASE + Math.floor(i / 2) * 60_000) });
  }
  for (let i = 0; i < 4; i++) await seedRun(stack, b.companyId, b.members.HR_MANAGER.userId, { createdAt: new Date(BASE + i * 60_000) });
  seeded = await stack.db.aiRun.findMany({
    where: { companyId: a.companyId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, status: true, createdAt: true },
  });
});
afterAll(async () => stack?.stop());

type User = Awaited<ReturnType<Stack['newUser']>>;
interface Page {
  items: { aiRunId: string; companyId: string; status: AiRunStatus; version: number; etag: string; createdAt: string }[];
  nextCursor: string | null;
}

function list(user: User, query: string, companyId = a.companyId) {
  return stack.app.inject({ method: 'GET', url: `/api/v1/companies/${companyId}/ai-runs${query ? `?${query}` : ''}`, headers: user.auth });
}

/** Walks every page of `query` (with `limit`), calling `between` after each page. */
async function walk(user: User, query: string, limit: number, between: () => Promise<void> = async () => undefined) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(user, [query, `limit=${limit}`, cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&'));
    expect(res.statusCode).toBe(200);
    const page = res.json() as Page;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((r) => r.aiRunId));
    cursor = page.nextCursor;
    pages++;
    await between();
  } while (cursor);
  return { ids, pages };
}

describe('pagination', () => {
  it('the first page is the newest runs, each a run summary with its ETag', async () => {
    const res = await list(a.members.VIEWER, 'limit=5');
    expect(res.statusCode).toBe(200);
    const page = res.json() as Page;
    expect(page.items.map((r) => r.aiRunId)).toEqual(seeded.slice(0, 5).map((r) => r.id));
    expect(page.items[0]).toMatchObject({ companyId: a.companyId, version: 3, etag: aiRunEtag(page.items[0]!.aiRunId, 3) });
    expect(typeof page.nextCursor).toBe('string');
  });

  it('walks every run exactly once, in order, while new runs are inserted between pages', async () => {
    let inserted = 0;
    const { ids, pages } = await walk(a.members.VIEWER, '', 4, async () => {
      await seedRun(stack, a.companyId, a.members.HR_MANAGER.userId, { status: 'QUEUED' }); // created now: newer than all
      inserted++;
    });
    expect(ids).toEqual(seeded.map((r) => r.id)); // no duplicates, no gaps, newest first
    expect(pages).toBe(Math.ceil(seeded.length / 4));
    expect(inserted).toBe(pages);
    // the new runs are at the front of a fresh walk
    const fresh = (await list(a.members.VIEWER, `limit=${inserted}`)).json() as Page;
    expect(fresh.items.every((r) => !seeded.some((s) => s.id === r.aiRunId))).toBe(true);
    await stack.db.aiRun.deleteMany({ where: { id: { in: fresh.items.map((r) => r.aiRunId) } } });
  });

  it('a page size of exactly the rest ends with nextCursor null; limit 100 returns everything at once', async () => {
    const all = (await list(a.members.VIEWER, 'limit=100')).json() as Page;
    expect(all.items.map((r) => r.aiRunId)).toEqual(seeded.map((r) => r.id));
    expect(all.nextCursor).toBeNull();
    const exact = (await list(a.members.VIEWER, `limit=${seeded.length}`)).json() as Page;
    expect(exact.nextCursor).toBeNull();
  });

  it.each(['limit=0', 'limit=101', 'limit=ten', 'limit=2.5'])('%s → 400 VALIDATION_FAILED', async (query) => {
    const res = await list(a.members.VIEWER, query);
    expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it.each([
    ['garbage', 'cursor=%25%25%25'],
    ['base64 of nonsense', `cursor=${Buffer.from('{"t":1}').toString('base64url')}`],
    ['a Tasks cursor', `cursor=${encodeCursor('tasks', { createdAt: new Date(), id: '00000000-0000-4000-8000-000000000000' })}`],
  ])('an invalid cursor (%s) → 400 INVALID_CURSOR problem+json', async (_name, query) => {
    const res = await list(a.members.VIEWER, query);
    expect([res.statusCode, res.json().code]).toEqual([400, 'INVALID_CURSOR']);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('status filter', () => {
  it.each([
    ['status=FAILED', ['FAILED']],
    ['status=QUEUED,RUNNING', ['QUEUED', 'RUNNING']],
    ['status=SUCCEEDED&status=RETRYING', ['SUCCEEDED', 'RETRYING']],
    [STATUSES.map((s) => `status=${s}`).join('&'), STATUSES],
  ] as const)('%s pages over exactly those runs', async (query, statuses) => {
    const { ids } = await walk(a.members.VIEWER, query, 2);
    expect(ids).toEqual(seeded.filter((r) => (statuses as readonly string[]).includes(r.status)).map((r) => r.id));
    expect(ids.length).toBeGreaterThan(0);
  });

  it.each(['status=DONE', 'status=FAILED,', 'status=failed', 'status='])('%s → 400 VALIDATION_FAILED', async (query) => {
    const res = await list(a.members.VIEWER, query);
    expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('who may read', () => {
  it("any member reads their company's runs and only those", async () => {
    for (const user of [a.members.VIEWER, a.members.HR_MANAGER]) {
      const page = (await list(user, 'limit=100')).json() as Page;
      expect(page.items.every((r) => r.companyId === a.companyId)).toBe(true);
    }
    const theirs = (await list(b.members.HR_MANAGER, 'limit=100', b.companyId)).json() as Page;
    expect(theirs.items).toHaveLength(4);
    expect(theirs.items.every((r) => r.companyId === b.companyId)).toBe(true);
  });

  it('a non-member → 404 NOT_FOUND, the same as an unknown company', async () => {
    const nobody = await stack.newUser();
    for (const [user, companyId] of [[b.members.HR_MANAGER, a.companyId], [nobody, a.companyId], [a.members.VIEWER, '00000000-0000-4000-8000-000000000000']] as const) {
      const res = await list(user, '', companyId);
      expect([res.statusCode, res.json().code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('a cursor from one company used on another lists only that other company', async () => {
    const first = (await list(a.members.VIEWER, 'limit=1')).json() as Page;
    const res = await list(b.members.HR_MANAGER, `limit=100&cursor=${first.nextCursor}`, b.companyId);
    expect(res.statusCode).toBe(200);
    expect((res.json() as Page).items.every((r) => r.companyId === b.companyId)).toBe(true);
  });
});
