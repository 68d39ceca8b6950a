import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { withTestDatabase } from '../support';

const TYPE = 'records.check';
/** The second case's type: the first leaves heads of TYPE behind. */
const OTHER = 'records.other';
/** The third case's type. */
const BATCH = 'records.batch';

/**
 * The group's head as append-only records (migration 039,
 * src/database/sql/039-group-head-records.up.sql): the newest record names
 * the head while it holds the group; every eighth record deletes the eight
 * before it; a record written for a row that ON CONFLICT DO NOTHING skipped
 * names an id that holds nothing, so the next insert becomes the head.
 */
describe('group head records', () => {
  const db = withTestDatabase('group_head_records');

  /** Claims the oldest head of `type` and records it done (no hand-off). */
  const runOne = async (c: Awaited<ReturnType<typeof db.connect>>, type = TYPE): Promise<void> => {
    const { rows } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_ACTIONS_SQL, values: ['w', [type], [null], 1, 60_000, false] });
    expect(rows).toHaveLength(1);
    const one = (v: unknown) => [v];
    await c.query({
      ...FINISH_ATTEMPTS_SQL,
      values: ['w', [rows[0].id], [rows[0].attempts], one('done'), one('{}'), one(null), one(null), one(0), one('done'), one(0), [], [], 60_000, 0],
    });
  };

  it('keeps at most eight old records of a group, the newest naming its head', async () => {
    const c = await db.connect();
    // 20 actions that each find the group empty (one record each), then 12
    // queued at once: the promotions write one record per action.
    for (let i = 0; i < 20; i++) {
      await c.query(`INSERT INTO actions (lock_id, type) VALUES (3, $1)`, [TYPE]);
      await runOne(c);
    }
    await c.query(`INSERT INTO actions (lock_id, type) SELECT 3, $1 FROM generate_series(1, 12)`, [TYPE]);
    for (let i = 0; i < 6; i++) await runOne(c);
    const { rows: records } = await c.query<{ version: string }>(`SELECT version FROM action_group_heads WHERE lock_id = 3 ORDER BY version`);
    // 21 records by the inserts, 6 by the promotions: versions 1..27, and
    // those before 24 deleted eight at a time: 24..27 are left.
    expect(records.map((r) => Number(r.version))).toEqual([24, 25, 26, 27]);
    const { rows: head } = await c.query<{ head_id: string; first_pending: string }>(
      `SELECT g.head_id::text, (SELECT min(id)::text FROM actions WHERE lock_id = 3 AND status = 'pending') AS first_pending
       FROM action_groups AS g WHERE g.lock_id = 3`,
    );
    expect(head[0].head_id).toBe(head[0].first_pending);
  });

  it('makes the next insert the head when the row that found the group empty was skipped by ON CONFLICT DO NOTHING', async () => {
    const c = await db.connect();
    await c.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES (4, $1, 'k-4')`, [OTHER]);
    await runOne(c, OTHER);
    // The group is empty again; this row finds it so, writes its record and is then skipped.
    const skipped = await c.query(
      `INSERT INTO actions (lock_id, type, idempotency_key) VALUES (4, $1, 'k-4') ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
      [OTHER],
    );
    expect(skipped.rowCount).toBe(0);
    const { rows } = await c.query<{ is_head: boolean }>(`INSERT INTO actions (lock_id, type) VALUES (4, $1) RETURNING is_head`, [OTHER]);
    expect(rows[0].is_head).toBe(true);
    await runOne(c, OTHER);
  });

  it('marks emptied the newest record of every group one finishing statement empties, and no other record', async () => {
    const c = await db.connect();
    // Group 10: two records (its first head done and the second promoted); groups 11-14: one action each;
    // group 15: an action queued behind its head, so the batch promotes there instead of emptying.
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (10, $1), (10, $1)`, [BATCH]);
    await runOne(c, BATCH);
    await c.query(`INSERT INTO actions (lock_id, type) SELECT g, $1 FROM generate_series(11, 15) AS g ORDER BY g`, [BATCH]);
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (15, $1)`, [BATCH]);
    const { rows } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_ACTIONS_SQL, values: ['w', [BATCH], [null], 10, 60_000, false] });
    expect(rows).toHaveLength(6);
    const all = <T>(v: T): T[] => rows.map(() => v);
    await c.query({
      ...FINISH_ATTEMPTS_SQL,
      values: [
        'w',
        rows.map((r) => r.id),
        rows.map((r) => r.attempts),
        all('done'),
        all('{}'),
        all(null),
        all(null),
        all(0),
        all('done'),
        all(0),
        [],
        [],
        60_000,
        0,
      ],
    });
    const { rows: records } = await c.query<{ lock_id: string; version: string; emptied: boolean }>(
      `SELECT lock_id::text, version::text, emptied FROM action_group_heads WHERE lock_id BETWEEN 10 AND 15 ORDER BY lock_id, version`,
    );
    expect(records.map((r) => `${r.lock_id}:${r.version}:${r.emptied}`)).toEqual([
      '10:1:false',
      '10:2:true',
      '11:1:true',
      '12:1:true',
      '13:1:true',
      '14:1:true',
      '15:1:false',
      '15:2:false',
    ]);
  });
});
