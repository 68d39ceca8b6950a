import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { backendPid, insertAction, sleep, waitForLockWaiters, withTestDatabase } from '../support';

const LEASE_MS = 60_000;

interface Leased {
  id: string;
  lock_id: string | null;
  attempts: number;
}

/** FINISH_ATTEMPTS_SQL's values: `done` for each held attempt; hand-off and claim of `types` up to `claim` actions. */
function finishValues(worker: string, held: Leased[], types: string[], claim: number): unknown[] {
  return [
    worker,
    held.map((h) => h.id),
    held.map((h) => h.attempts),
    held.map(() => 'done'),
    held.map(() => '{}'),
    held.map(() => null),
    held.map(() => null),
    held.map(() => 0),
    held.map(() => 'done'),
    held.map(() => 0),
    types,
    types.map(() => null),
    LEASE_MS,
    claim,
  ];
}

/**
 * Races and multi-group inserts that keep one head per group (migration 039):
 * REPEATABLE READ producers racing a finishing worker (group emptied, group
 * handed off) and a lease-ending statement that has already updated the head
 * when the producer checks it (a release waiting for the group lock the producer holds);
 * and a multi-row INSERT ... SELECT into integer and string groups with rows
 * skipped by ON CONFLICT DO NOTHING, checked against the action_groups view.
 */
describe('races and multi-group inserts that must keep one head per group', () => {
  const db = withTestDatabase('m039_races');
  let admin: Client;

  const state = async (G: number | string) => {
    const { rows } = await admin.query<{ heads: string[] | null; smallest: string | null; view_head: string | null }>(
      `SELECT (SELECT array_agg(id::text ORDER BY id) FROM actions WHERE lock_id = $1 AND is_head) AS heads,
              (SELECT min(id)::text FROM actions WHERE lock_id = $1 AND holds_group) AS smallest,
              (SELECT head_id::text FROM action_groups WHERE lock_id = $1) AS view_head`,
      [G],
    );
    return { heads: rows[0].heads ?? [], smallest: rows[0].smallest, viewHead: rows[0].view_head };
  };
  const expectOneHead = async (G: number | string) => {
    const s = await state(G);
    expect({ G, heads: s.heads, viewHead: s.viewHead }).toEqual({ G, heads: s.smallest ? [s.smallest] : [], viewHead: s.smallest });
  };

  const rrInsert = async (rr: Client, G: number, type: string): Promise<string | undefined> => {
    try {
      await insertAction(rr, G, type);
      await rr.query('COMMIT');
      return undefined;
    } catch (error) {
      await rr.query('ROLLBACK');
      return (error as { code?: string }).code;
    }
  };

  const claim = async (c: Client, worker: string, type: string, limit = 1, leaseMs = LEASE_MS) =>
    (await c.query<Leased>({ ...CLAIM_ACTIONS_SQL, values: [worker, [type], [null], limit, leaseMs, false] })).rows;

  beforeAll(async () => {
    admin = await db.connect();
  });

  it.each([
    { name: 'empties the group', G: 941, behind: 0, isolation: 'REPEATABLE READ' },
    { name: 'hands the group on to its next action', G: 942, behind: 1, isolation: 'REPEATABLE READ' },
    { name: 'empties the group (SERIALIZABLE producer)', G: 943, behind: 0, isolation: 'SERIALIZABLE' },
  ])('a $isolation producer whose snapshot predates a worker that $name fails with 40001 or stays correct', async ({ G, behind, isolation }) => {
    const [worker, rr] = [await db.connect(), await db.connect()];
    const [workerId, type] = [`w${G}`, `check.races.${G}`];
    await insertAction(admin, G, type);
    for (let i = 0; i < behind; i++) await insertAction(admin, G, type);
    const held = await claim(worker, workerId, type);
    expect(held.map((h) => h.lock_id)).toEqual([String(G)]);
    // The finishing statement is in flight (its transaction open) when the producer takes its snapshot.
    await worker.query('BEGIN');
    const { rows: finished } = await worker.query<{ kind: string }>({ ...FINISH_ATTEMPTS_SQL, values: finishValues(workerId, held, [type], 1) });
    expect(finished.filter((f) => f.kind === 'claimed')).toHaveLength(behind);
    const rrPid = await backendPid(rr);
    await rr.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    await rr.query('SELECT 1');
    const pending = rrInsert(rr, G, type);
    await waitForLockWaiters(db.name, 1, [rrPid], 5_000);
    await worker.query('COMMIT');
    const code = await pending;
    expect([undefined, '40001']).toContain(code);
    await expectOneHead(G);
    // Its retry goes through.
    await rr.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    expect(await rrInsert(rr, G, type)).toBeUndefined();
    await expectOneHead(G);
  });

  it('a REPEATABLE READ producer holding the group lock while a lease-ending statement waits for it after updating the head', async () => {
    const [G, type] = [944, 'check.races.944'];
    const [worker, reaper, rr] = [await db.connect(), await db.connect(), await db.connect()];
    const head = await insertAction(admin, G, type);
    // A short lease, so that it has expired (its worker gone) when the lease-ending statement runs.
    const held = await claim(worker, 'w944', type, 1, 500);
    expect(held.map((h) => h.id)).toEqual([head]);
    await admin.query(`UPDATE actions SET cancel_requested_at = now() WHERE id = $1`, [head]);
    await sleep(700);
    // The producer locks the group with a first row (the head unchanged since its snapshot)...
    await rr.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await rr.query('SELECT 1');
    const first = await insertAction(rr, G, type);
    // ...then the lease ends (cancelled: the group is released) and its promotion waits for the group lock.
    const reaperPid = await backendPid(reaper);
    const ending = reaper.query(`SELECT * FROM aq_end_lost_attempts(ARRAY[$1::bigint], NULL, 'lease_expired', 'lost', 0, false)`, [head]);
    await waitForLockWaiters(db.name, 1, [reaperPid], 5_000);
    // The head is being changed right now: the check passes (NOWAIT); the release will promote after this commit.
    const second = await insertAction(rr, G, type);
    await rr.query('COMMIT');
    await ending;
    expect((await admin.query(`SELECT status FROM actions WHERE id = $1`, [head])).rows[0].status).toBe('cancelled');
    const s = await state(G);
    expect(s.heads).toEqual([first]);
    expect(s.viewHead).toBe(first);
    expect(BigInt(second)).toBeGreaterThan(BigInt(first));
  });

  it('a multi-row INSERT ... SELECT into integer and string groups, some rows skipped by ON CONFLICT DO NOTHING', async () => {
    const TYPE = 'check.races.multi';
    await admin.query(`INSERT INTO actions (type, idempotency_key) VALUES ($1, 'dup-0'), ($1, 'dup-3')`, [TYPE]);
    // Groups 951..953 and 'tenant:a'/'tenant:b', interleaved; rows 0 and 3 (a group's first) are skipped.
    const { rows } = await admin.query<{ id: string; lock_id: string; is_head: boolean }>(
      `INSERT INTO actions (lock_id, group_key, type, idempotency_key)
       SELECT CASE WHEN i % 5 < 3 THEN 951 + i % 5 END, CASE i % 5 WHEN 3 THEN 'tenant:a' WHEN 4 THEN 'tenant:b' END,
              $1, CASE WHEN i IN (0, 3) THEN 'dup-' || i END
       FROM generate_series(0, 24) AS i
       ON CONFLICT DO NOTHING
       RETURNING id::text, lock_id::text, is_head`,
      [TYPE],
    );
    expect(rows).toHaveLength(23);
    const { rows: keyed } = await admin.query<{ lock_id: string }>(`SELECT lock_id::text FROM action_group_keys WHERE group_key IN ('tenant:a', 'tenant:b')`);
    for (const G of ['951', '952', '953', ...keyed.map((k) => k.lock_id)]) {
      const ofGroup = rows.filter((r) => r.lock_id === G);
      expect({ G, heads: ofGroup.filter((r) => r.is_head).map((r) => r.id) }).toEqual({ G, heads: [ofGroup[0].id] });
      await expectOneHead(G);
    }
    // Then each group runs its actions one at a time, in id order.
    for (let round = 0; round < 5; round++) {
      const held = await claim(admin, 'w95x', TYPE, 50);
      const byGroup = new Map<string, string[]>();
      for (const h of held.filter((x) => x.lock_id !== null)) byGroup.set(h.lock_id!, [...(byGroup.get(h.lock_id!) ?? []), h.id]);
      expect([...byGroup.entries()].filter(([, ids]) => ids.length > 1)).toEqual([]);
      for (const [G, [id]] of byGroup) {
        const { rows: older } = await admin.query(`SELECT 1 FROM actions WHERE lock_id = $1 AND holds_group AND id < $2`, [G, id]);
        expect({ G, id, older: older.length }).toEqual({ G, id, older: 0 });
      }
      await admin.query({ ...FINISH_ATTEMPTS_SQL, values: finishValues('w95x', held, [], 0) });
    }
    const { rows: left } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM actions WHERE type = $1 AND status <> 'done' AND lock_id IS NOT NULL AND (lock_id BETWEEN 951 AND 953 OR group_key IS NOT NULL)`,
      [TYPE],
    );
    expect(left[0].n).toBe(0);
  });
});
