import { Client } from 'pg';
import { backendPid, waitForLockWaiters, withTestDatabase } from '../support';

/**
 * Migration 044: a grouped row whose group's newest head record this
 * transaction wrote itself reads the head without taking the group lock
 * again. These cases hold the proof to its word: the group stays locked for
 * other producers (G4: ids in commit order), a record of a subtransaction or
 * of a row skipped by ON CONFLICT proves nothing wrong, and a head released
 * earlier in the transaction is seen; one head per group throughout.
 */
describe("insert trigger: the group lock proven by the transaction's own head record", () => {
  const db = withTestDatabase('m044_own_records');
  let admin: Client;

  beforeAll(async () => {
    admin = await db.connect();
  });

  /** Heads and the smallest holding action of group `g`: exactly one head, the smallest holder. */
  const expectOneHead = async (g: number) => {
    const { rows } = await admin.query<{ heads: string[] | null; smallest: string | null; view_head: string | null }>(
      `SELECT (SELECT array_agg(id::text ORDER BY id) FROM actions WHERE lock_id = $1 AND is_head AND holds_group) AS heads,
              (SELECT min(id)::text FROM actions WHERE lock_id = $1 AND holds_group) AS smallest,
              (SELECT head_id::text FROM action_groups WHERE lock_id = $1) AS view_head`,
      [g],
    );
    const r = rows[0];
    expect({ g, heads: r.heads ?? [], view: r.view_head }).toEqual({ g, heads: r.smallest ? [r.smallest] : [], view: r.smallest });
  };
  const hint = async (c: Client) => (await c.query<{ v: string | null }>(`SELECT current_setting('aq.insert_own_records', true) AS v`)).rows[0].v;

  it('a round-robin INSERT ... SELECT into new groups, and more statements into them in the same transaction, keeps one head per group', async () => {
    const c = await db.connect();
    await c.query('BEGIN');
    await c.query(`INSERT INTO actions (lock_id, type) SELECT 1000 + i % 50, 't' FROM generate_series(1, 1000) AS i ORDER BY i`);
    expect(await hint(c)).toBe('on');
    await c.query(`INSERT INTO actions (lock_id, type) SELECT 1000 + i % 50, 't' FROM generate_series(1, 200) AS i ORDER BY i`);
    await c.query('COMMIT');
    for (let g = 1000; g < 1050; g++) await expectOneHead(g);
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id BETWEEN 1000 AND 1049`);
    expect(rows[0].n).toBe(1200);
  });

  it('another producer still waits for the group: its ids come after every id of the transaction that holds it (G4)', async () => {
    const a = await db.connect();
    const b = await db.connect();
    const bPid = await backendPid(b);
    await a.query('BEGIN');
    await a.query(`INSERT INTO actions (lock_id, type) VALUES (2000, 'a1')`);
    // This row reads first: the record is the transaction's own.
    await a.query(`INSERT INTO actions (lock_id, type) VALUES (2000, 'a2')`);
    let bDone = false;
    const bInsert = b.query(`INSERT INTO actions (lock_id, type) VALUES (2000, 'b1') RETURNING id::text`).then((r) => {
      bDone = true;
      return r.rows[0].id as string;
    });
    await waitForLockWaiters(db.name, 1, [bPid]);
    // Still on the own-record path while b waits: a's third row takes its id before b's.
    await a.query(`INSERT INTO actions (lock_id, type) VALUES (2000, 'a3')`);
    expect(bDone).toBe(false);
    await a.query('COMMIT');
    const bId = await bInsert;
    const { rows } = await admin.query<{ type: string; id: string }>(`SELECT type, id::text FROM actions WHERE lock_id = 2000 ORDER BY id`);
    expect(rows.map((r) => r.type)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(rows[3].id).toBe(bId);
    await expectOneHead(2000);
  });

  it('a head row skipped by ON CONFLICT leaves a record of its own that names nothing: the next row of the group becomes the head', async () => {
    await admin.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES (3999, 't', 'm044-taken')`);
    const c = await db.connect();
    await c.query('BEGIN');
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (3000, 't')`);
    expect(await hint(c)).toBe('on');
    await c.query(
      `INSERT INTO actions (lock_id, type, idempotency_key) VALUES (3001, 'skipped', 'm044-taken'), (3001, 'kept', 'm044-new'), (3001, 'kept2', NULL)
       ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
    );
    await c.query('COMMIT');
    const { rows } = await admin.query<{ type: string; is_head: boolean }>(`SELECT type, is_head FROM actions WHERE lock_id = 3001 ORDER BY id`);
    expect(rows).toEqual([
      { type: 'kept', is_head: true },
      { type: 'kept2', is_head: false },
    ]);
    await expectOneHead(3001);
  });

  it('a record written in a subtransaction proves nothing; one rolled back is gone with its lock', async () => {
    const c = await db.connect();
    const other = await db.connect();
    await c.query('BEGIN');
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (4000, 'top')`);
    await c.query('SAVEPOINT s');
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (4001, 'in-savepoint')`);
    await c.query('ROLLBACK TO SAVEPOINT s');
    // Group 4001's lock went with the savepoint: another producer is not held up by it.
    await other.query(`INSERT INTO actions (lock_id, type) VALUES (4001, 'other')`);
    await c.query('SAVEPOINT t');
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (4002, 'released-savepoint')`);
    await c.query('RELEASE SAVEPOINT t');
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (4002, 'after'), (4001, 'after'), (4000, 'after')`);
    await c.query('COMMIT');
    for (const g of [4000, 4001, 4002]) await expectOneHead(g);
    const { rows } = await admin.query<{ lock_id: string; type: string }>(
      `SELECT lock_id::text, type FROM actions WHERE lock_id BETWEEN 4000 AND 4002 ORDER BY id`,
    );
    expect(rows).toEqual([
      { lock_id: '4000', type: 'top' },
      { lock_id: '4001', type: 'other' },
      { lock_id: '4002', type: 'released-savepoint' },
      { lock_id: '4002', type: 'after' },
      { lock_id: '4001', type: 'after' },
      { lock_id: '4000', type: 'after' },
    ]);
  });

  it('a head released earlier in the transaction: the next insert sees the promoted head, or an empty group', async () => {
    const c = await db.connect();
    await c.query('BEGIN');
    const { rows: made } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type) VALUES (5000, 'first'), (5000, 'second'), (5001, 'alone') RETURNING id::text`,
    );
    await c.query(`UPDATE actions SET status = 'cancelled' WHERE id = $1`, [made[0].id]);
    await c.query(`UPDATE actions SET status = 'cancelled' WHERE id = $1`, [made[2].id]);
    const { rows } = await c.query<{ lock_id: string; is_head: boolean }>(
      `INSERT INTO actions (lock_id, type) VALUES (5000, 'third'), (5001, 'new-head') RETURNING lock_id::text, is_head`,
    );
    await c.query('COMMIT');
    expect(rows).toEqual([
      { lock_id: '5000', is_head: false },
      { lock_id: '5001', is_head: true },
    ]);
    await expectOneHead(5000);
    await expectOneHead(5001);
  });
});
