import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { insertAction, withTestDatabase } from '../support';

/** A type no worker runs here: the test plays the worker's claim itself. */
const TYPE = 'check.parked';

/**
 * One head per group when a head is released inside the multi-row insert
 * into its group (migration 039's aq_lock_group). Seen failing on an earlier
 * form of 039, where a row was a head when the newest head record named an
 * action that no longer held the group: a row inserted while the group still had a head (so not a
 * head), then a release of that head inside the same statement (a
 * data-modifying CTE the INSERT reads, a MERGE, DELETE ... RETURNING feeding
 * the INSERT), leave the next row of that group finding the record's head
 * released: it becomes a head, and the release's promotion (an AFTER
 * STATEMENT trigger) crowned the earlier row too (two heads; now the lookup
 * takes the first holding row from the recorded head on). 038 kept one head here: its
 * group row still named the released head until the promotion ran, and its
 * probe saw every holding row of the group.
 */
describe('a head released in the middle of a multi-row insert into its group', () => {
  const db = withTestDatabase('m039_midstmt');
  let c: Client;

  const headsOf = async (lockId: number) =>
    (await c.query<{ id: string }>(`SELECT id::text FROM actions WHERE lock_id = $1 AND is_head ORDER BY actions.id`, [lockId])).rows.map((r) => r.id);
  const smallestHolding = async (lockId: number) =>
    (await c.query<{ id: string | null }>(`SELECT min(id)::text AS id FROM actions WHERE lock_id = $1 AND holds_group`, [lockId])).rows[0].id;

  beforeAll(async () => {
    c = await db.connect();
  });

  it('keeps one head when the statement cancels the head between two of its rows (CTE read by the INSERT)', async () => {
    const G = 901;
    const head = await insertAction(c, G, TYPE);
    await c.query(
      `WITH c AS (UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1 RETURNING lock_id)
       INSERT INTO actions (lock_id, type, payload)
       SELECT s.lock_id, $2, jsonb_build_object('seq', s.seq)
       FROM (SELECT $3::bigint AS lock_id, 1 AS seq UNION ALL SELECT c.lock_id, 2 FROM c) AS s`,
      [head, TYPE, G],
    );
    const heads = await headsOf(G);
    const smallest = await smallestHolding(G);
    // What two heads mean: one claim takes two actions of one group at once.
    const { rows } = await c.query<{ id: string; lock_id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', [TYPE], [null], 10, 60_000, false] });
    expect({ heads, claimedAtOnce: rows.filter((r) => r.lock_id === String(G)).map((r) => r.id) }).toEqual({ heads: [smallest], claimedAtOnce: [smallest] });
  });

  it('keeps one head when one MERGE inserts into a group, cancels its head and inserts again (source walked in order)', async () => {
    const G = 903;
    const head = await insertAction(c, G, TYPE);
    // The plan walks the source in its order (a nested loop over VALUES), as it
    // may for a larger target table: insert, cancel the head, insert.
    await c.query('BEGIN');
    await c.query('SET LOCAL enable_hashjoin = off');
    await c.query('SET LOCAL enable_mergejoin = off');
    await c.query(
      `MERGE INTO actions AS a
       USING (VALUES (1, NULL::bigint), (2, $1::bigint), (3, NULL::bigint)) AS s(seq, id)
       ON a.id = s.id
       WHEN MATCHED THEN UPDATE SET status = 'cancelled', finished_at = now()
       WHEN NOT MATCHED THEN INSERT (lock_id, type, payload) VALUES ($2, $3, jsonb_build_object('seq', s.seq))`,
      [head, G, TYPE],
    );
    await c.query('COMMIT');
    expect((await c.query(`SELECT status FROM actions WHERE id = $1`, [head])).rows[0].status).toBe('cancelled');
    expect(await headsOf(G)).toEqual([await smallestHolding(G)]);
  });

  it("keeps one head when a group's pending actions are re-enqueued by DELETE ... RETURNING into INSERT, the head's row version last", async () => {
    const G = 902;
    const [head] = [await insertAction(c, G, TYPE, { step: 1 }), await insertAction(c, G, TYPE, { step: 2 }), await insertAction(c, G, TYPE, { step: 3 })];
    // The head's row gets a newer version (an operator's reschedule, a retry), so a
    // sequential scan meets it after the others.
    await c.query(`UPDATE actions SET run_at = now() WHERE id = $1`, [head]);
    await c.query('BEGIN');
    try {
      await c.query('SET LOCAL enable_indexscan = off');
      await c.query('SET LOCAL enable_bitmapscan = off');
      await c.query('SET LOCAL enable_indexonlyscan = off');
      await c.query(
        `WITH old AS (DELETE FROM actions WHERE lock_id = $1 AND status = 'pending' RETURNING lock_id, type, payload)
         INSERT INTO actions (lock_id, type, payload) SELECT lock_id, type, payload FROM old`,
        [G],
      );
      await c.query('COMMIT');
    } catch (error) {
      await c.query('ROLLBACK');
      throw error;
    }
    const { rows: left } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id = $1 AND holds_group`, [G]);
    expect(left[0].n).toBe(3);
    expect(await headsOf(G)).toEqual([await smallestHolding(G)]);
  });
});
