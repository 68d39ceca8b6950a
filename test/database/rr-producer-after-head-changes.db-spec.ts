import { Client } from 'pg';
import { migratedUpTo } from '../fixtures/previous-releases';
import { insertAction, migrateDatabase, withTestDatabase } from '../support';

const TYPE = 'check.parked';

/**
 * A REPEATABLE READ / SERIALIZABLE producer whose snapshot shows an idle
 * group gets one head or 40001 however many head changes came since (header
 * of 039-group-head-records.up.sql). Seen failing on an earlier form of 039:
 * a producer whose snapshot shows the group
 * empty (no record, or a newest record v naming an action that no longer
 * holds the group) decides "head" and writes record v + 1 with ON CONFLICT DO
 * NOTHING; the guard is that the conflict raises 40001 when another
 * transaction wrote v + 1 after the snapshot. But every eighth record deletes
 * the eight before it (point 2): once the group has had enough head changes
 * since the snapshot that v + 1 was deleted, the key is free, the insert
 * succeeds, and nothing else raises (no head to lock FOR SHARE; the lock row
 * is never updated). The group committed two heads. Now a deleted version + 1
 * implies a deleted newest record, which the guard's share lock meets, and
 * every lock row has a record. 038 raised 40001 (every
 * head change updated the group row it locks). Under load (the benchmark's
 * 800 actions/s into 1 000 groups) a group changes head about every 1.25 s:
 * an RR transaction of about 10 s is enough.
 */

/** `changes` head changes in group G: insert-and-cancel cycles, then a head left pending. */
async function headChanges(c: Client, G: number, changes: number): Promise<void> {
  for (let i = 0; i < changes - 1; i++) {
    const id = await insertAction(c, G, TYPE);
    await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [id]);
  }
  await insertAction(c, G, TYPE);
}

async function race(rr: Client, other: Client, G: number, isolation: string, changes: number): Promise<string | undefined> {
  await rr.query(`BEGIN ISOLATION LEVEL ${isolation}`);
  await rr.query('SELECT 1'); // the snapshot: group G holds nothing
  await headChanges(other, G, changes);
  try {
    await insertAction(rr, G, TYPE);
    await rr.query('COMMIT');
    return undefined;
  } catch (error) {
    await rr.query('ROLLBACK');
    return (error as { code?: string }).code;
  }
}

async function expectOneHead(c: Client, G: number, code: string | undefined): Promise<void> {
  const heads = (await c.query<{ id: string }>(`SELECT id::text FROM actions WHERE lock_id = $1 AND is_head ORDER BY actions.id`, [G])).rows.map((r) => r.id);
  const smallest = (await c.query<{ id: string | null }>(`SELECT min(id)::text AS id FROM actions WHERE lock_id = $1 AND holds_group`, [G])).rows[0].id;
  expect({ code: [undefined, '40001'].includes(code) ? 'ok' : code, heads }).toEqual({ code: 'ok', heads: [smallest] });
}

describe('a REPEATABLE READ / SERIALIZABLE producer whose snapshot shows an idle group, after many head changes', () => {
  const db = withTestDatabase('m039_rr_reuse');

  const cases = [
    { changes: 1, isolation: 'REPEATABLE READ' },
    { changes: 6, isolation: 'REPEATABLE READ' },
    { changes: 7, isolation: 'REPEATABLE READ' },
    { changes: 12, isolation: 'REPEATABLE READ' },
    { changes: 12, isolation: 'SERIALIZABLE' },
  ].map((c, i) => ({ ...c, G: 971 + i }));

  it.each(cases)('$isolation, $changes head changes after the snapshot: one head, or 40001', async ({ G, changes, isolation }) => {
    const [rr, other] = [await db.connect(), await db.connect()];
    // The group ran one action and emptied: its record (version 1) names an action that holds nothing.
    const first = await insertAction(other, G, TYPE);
    await other.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [first]);
    const code = await race(rr, other, G, isolation, changes);
    await expectOneHead(other, G, code);
  });

  it('REPEATABLE READ, a lock row without a record (made through the action_groups view), 8 head changes', async () => {
    const G = 979;
    const [rr, other] = [await db.connect(), await db.connect()];
    await other.query(`INSERT INTO action_groups (lock_id) VALUES ($1)`, [G]);
    const code = await race(rr, other, G, 'REPEATABLE READ', 8);
    await expectOneHead(other, G, code);
  });
});

describe('the same race on a group that was empty when 039 was applied', () => {
  const db = withTestDatabase('m039_rr_reuse_up', { migrated: false });

  it('REPEATABLE READ, 8 head changes after the snapshot: one head, or 40001', async () => {
    const G = 981;
    await migratedUpTo(db.url, 'HandOffFastPath1764460800038');
    const [rr, other] = [await db.connect(), await db.connect()];
    const done = await insertAction(other, G, TYPE);
    await other.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [done]);
    expect((await other.query(`SELECT head_id FROM action_groups WHERE lock_id = $1`, [G])).rows).toEqual([{ head_id: null }]);
    await migrateDatabase(db.url);
    // 039 gives it a first record that names no head.
    expect((await other.query(`SELECT head_id::int FROM action_group_heads WHERE lock_id = $1`, [G])).rows).toEqual([{ head_id: 0 }]);
    const code = await race(rr, other, G, 'REPEATABLE READ', 8);
    await expectOneHead(other, G, code);
  });
});
