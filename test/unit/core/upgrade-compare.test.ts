/** The row comparison of the migrations upgrade test: what counts as a lost or changed row. */
import { lostRows, newRows, type Row, type Snapshot } from '../../support/upgrade';

const snap = (tables: Record<string, Record<string, Row>>): Snapshot =>
  new Map(Object.entries(tables).map(([t, rows]) => [t, new Map(Object.entries(rows))]));

const alice = { id: 'u1', name: 'alice', time_zone: 'Asia/Seoul', tags: ['a', 'b'], items: { rank: 1, reasons: [] } };
const release1 = snap({ users: { '["u1"]': alice } });

it('rows kept with the same values, and columns added later, are not reported', () => {
  const final = snap({ users: { '["u1"]': { ...alice, tags: ['a', 'b'], items: { reasons: [], rank: 1 }, added_later: 7 } } });
  expect(lostRows([{ release: 'r1', rows: release1 }], final)).toEqual([]);
});

it('a changed value, a dropped column and a missing row are each reported with their release', () => {
  const { time_zone: _dropped, ...rest } = alice;
  const changed = snap({ users: { '["u1"]': { ...rest, name: 'Alice', items: { rank: 2, reasons: [] } } } });
  expect(lostRows([{ release: 'r1', rows: release1 }], changed)).toEqual([
    {
      release: 'r1',
      table: 'users',
      key: '["u1"]',
      problem: [
        { column: 'name', seeded: 'alice', now: 'Alice' },
        { column: 'time_zone', seeded: 'Asia/Seoul', now: '(column dropped)' },
        { column: 'items', seeded: { rank: 1, reasons: [] }, now: { rank: 2, reasons: [] } },
      ],
    },
  ]);
  expect(lostRows([{ release: 'r1', rows: release1 }], snap({ users: {} }))).toEqual([
    { release: 'r1', table: 'users', key: '["u1"]', problem: 'missing' },
  ]);
});

it('a release owns only the rows its seed added', () => {
  const after2 = snap({ users: { '["u1"]': alice, '["u2"]': { id: 'u2' } }, tokens: { '["t1"]': { id: 't1' } } });
  expect(newRows(release1, after2)).toEqual(snap({ users: { '["u2"]': { id: 'u2' } }, tokens: { '["t1"]': { id: 't1' } } }));
});
