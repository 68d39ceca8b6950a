import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { claimSelectionSql, waitFor, withTestDatabase } from '../support';

const LEASE_MS = 60_000;

async function claim(c: Client, worker: string, types: string[], limit: number): Promise<{ id: string; attempts: number }[]> {
  const { rows } = await c.query({ ...CLAIM_ACTIONS_SQL, values: [worker, types, types.map(() => null), limit, LEASE_MS, false] });
  return rows;
}

/** Finishes `held` as done for `worker`; with `types` empty nothing is handed over or claimed (a plain promotion). */
async function finish(c: Client, worker: string, held: { id: string; attempts: number }[], types: string[] = []): Promise<void> {
  await c.query({
    ...FINISH_ATTEMPTS_SQL,
    values: [
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
      0,
    ],
  });
}

/**
 * The claim frontier of migration 023 (src/database/sql/023-claim-frontier.up.sql):
 * each connection claims from a floor on run_at instead of from the start of
 * actions_claimable_idx, so heads claimed while the MVCC horizon is held (dead
 * entries nobody may prune) are not walked again; heads that become claimable
 * below a floor are still found. Each test uses its own action type, so the
 * connections' floors (kept per set of types) do not meet. Seen failing against
 * a 023 without the update trigger's bump (the promoted head), without the
 * sweep after an empty claim (the slow producer) and without the finishing
 * function's enable_seqscan = off (2 sequential scans).
 */
describe('the claim frontier', () => {
  const db = withTestDatabase('frontier');

  it('starts the claim past the heads claimed under a held horizon (a few index entries read instead of thousands)', async () => {
    const type = 'frontier.held';
    const holder = await db.connect();
    const worker = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT txid_current()');
    try {
      // 3 000 heads with run_at one second apart, oldest first, claimed and
      // finished 100 at a time: each claim fills its limit, so the floor
      // follows the first head it took.
      await worker.query(
        `INSERT INTO actions (type, run_at) SELECT $1, now() - (3000 - i) * interval '1 second' FROM generate_series(1, 3000) AS i ORDER BY i`,
        [type],
      );
      for (;;) {
        const held = await claim(worker, 'w-held', [type], 100);
        if (held.length === 0) break;
        await finish(worker, 'w-held', held);
      }
      const { rows } = await worker.query<{ floor: string }>(`SELECT split_part(current_setting('aq.claim_frontier'), '|', 2) AS floor`);
      const floor = rows[0].floor;
      const { rows: below } = await worker.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE type = $1 AND run_at < $2::timestamptz`, [
        type,
        floor,
      ]);
      // The floor is past (nearly) every head claimed: the dead prefix lies below it.
      expect(below[0].n).toBeGreaterThanOrEqual(2_900);

      // The selection from the floor against the sweep's from the start, while
      // all those dead entries are still in the index (the horizon is held):
      // index entries the scan read, dead or alive, as this transaction counts
      // them (buffers would not show it: consecutive entries share heap pages).
      await worker.query(`INSERT INTO actions (type) SELECT $1 FROM generate_series(1, 10)`, [type]);
      const entriesRead = async (floorLiteral: string): Promise<number> => {
        const sql = claimSelectionSql().replace(`'-infinity'::timestamptz`, floorLiteral);
        await worker.query('BEGIN');
        try {
          // The planner settings aq_claim_actions runs with: an index walk, no bitmap scan.
          await worker.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
          // Counts not yet sent to the statistics (this backend's, since its last report): a difference.
          const read = async () =>
            (await worker.query<{ n: number }>(`SELECT pg_stat_get_xact_tuples_returned('actions_claimable_idx'::regclass)::int AS n`)).rows[0].n;
          const before = await read();
          const { rows: claimed } = await worker.query(sql, [[type], 10]);
          expect(claimed).toHaveLength(10);
          return (await read()) - before;
        } finally {
          await worker.query('ROLLBACK');
        }
      };
      const fromFloor = await entriesRead(worker.escapeLiteral(floor) + '::timestamptz');
      const fromStart = await entriesRead(`'-infinity'::timestamptz`);
      // From the start: the 3 000 dead entries, then the 10 heads.
      expect(fromStart).toBeGreaterThanOrEqual(3_000);
      expect(fromFloor).toBeLessThan(200);
    } finally {
      await holder.query('ROLLBACK');
    }
  }, 120_000);

  it('claims at once a head promoted below the floor while newer heads wait above it', async () => {
    const type = 'frontier.promoted';
    const c = await db.connect();
    // No periodic sweep on this connection: only the bump may find the promoted head.
    await c.query(`SET aq.claim_sweep_interval_ms = '3600000'`);
    // Group 701: an old head and an old second action (run_at an hour ago).
    await c.query(`INSERT INTO actions (lock_id, type, run_at) VALUES (701, $1, now() - interval '1 hour'), (701, $1, now() - interval '1 hour')`, [type]);
    const first = await claim(c, 'w-promoted', [type], 10);
    expect(first).toHaveLength(1);
    // The claim saw every head it could take: its floor is now about now() - 1 s.
    await c.query(`INSERT INTO actions (type) VALUES ($1)`, [type]);
    const lateBefore = await c.query<{ v: string | null }>(`SELECT pg_sequence_last_value('actions_late_heads_seq')::text AS v`);
    // Finished without taking work: the group's second action becomes a plain head, run_at an hour ago.
    await finish(c, 'w-promoted', first);
    const lateAfter = await c.query<{ v: string | null }>(`SELECT pg_sequence_last_value('actions_late_heads_seq')::text AS v`);
    expect(lateAfter.rows[0].v).not.toBe(lateBefore.rows[0].v);
    // The newer head above the floor alone would satisfy a claim from the floor;
    // the bump makes a claim sweep (at once, or after the last sweep's cost x 100
    // when the machine is slow), so the promoted head is taken too.
    const { rows: second } = await c.query<{ id: string }>(`SELECT max(id)::text AS id FROM actions WHERE lock_id = 701`);
    const taken: string[] = [];
    await waitFor(async () => {
      taken.push(...(await claim(c, 'w-promoted', [type], 10)).map((r) => r.id));
      return taken.includes(second[0].id);
    }, 10_000);
    expect(taken).toHaveLength(2);
  });

  it('claims a head whose producer committed long after its run_at, below the floor', async () => {
    const type = 'frontier.slow-producer';
    const c = await db.connect();
    // No periodic sweep on this connection: only "nothing above the floor" may find the head.
    await c.query(`SET aq.claim_sweep_interval_ms = '3600000'`);
    const producer = await db.connect();
    await producer.query('BEGIN');
    await producer.query(`INSERT INTO actions (type) VALUES ($1)`, [type]);
    const { rows: started } = await producer.query<{ t: string }>(`SELECT now()::text AS t`);
    // Let the claimer's floor pass the producer's run_at (its transaction's start).
    await waitFor(async () => (await c.query(`SELECT now() - $1::timestamptz > interval '1.5 seconds' AS ok`, [started[0].t])).rows[0].ok);
    expect(await claim(c, 'w-slow', [type], 10)).toEqual([]);
    const { rows: floor } = await c.query<{ above: boolean }>(
      `SELECT split_part(current_setting('aq.claim_frontier'), '|', 2)::timestamptz > $1::timestamptz AS above`,
      [started[0].t],
    );
    expect(floor[0].above).toBe(true);
    await producer.query('COMMIT');
    // Nothing above the floor: a claim sweeps from the start and finds it (at
    // once, or after the last sweep's cost x 100 when the machine is slow).
    await waitFor(async () => (await claim(c, 'w-slow', [type], 10)).length === 1, 10_000);
  });
});

/**
 * The worker's functions keep generic plans per connection (007, 023); one made
 * at the connection's first finish, on a nearly empty table, scanned the whole
 * table on every later batch until 023 ruled out sequential scans there.
 */
describe('the finishing statement on a connection that started on an empty queue', () => {
  const db = withTestDatabase('finishplan');

  it('keeps the finishing statement an index walk when its plan was made on a nearly empty table', async () => {
    const type = 'frontier.plan';
    const c = await db.connect();
    await c.query(`INSERT INTO actions (type) VALUES ($1)`, [type]);
    // First claim and finish on this connection: the generic plans are made now.
    await finish(c, 'w-plan', await claim(c, 'w-plan', [type], 10));
    await c.query(`INSERT INTO actions (type) SELECT $1 FROM generate_series(1, 5000)`, [type]);
    const held = await claim(c, 'w-plan', [type], 32);
    // Sequential scans of actions by this backend (counts not yet sent to the statistics: a difference).
    const seqScans = async () => (await c.query<{ n: number }>(`SELECT pg_stat_get_xact_numscans('actions'::regclass)::int AS n`)).rows[0].n;
    const indexScans = async () => (await c.query<{ n: number }>(`SELECT pg_stat_get_xact_numscans('actions_pkey'::regclass)::int AS n`)).rows[0].n;
    await c.query('BEGIN');
    try {
      const [seqBefore, indexBefore] = [await seqScans(), await indexScans()];
      await finish(c, 'w-plan', held);
      expect((await seqScans()) - seqBefore).toBe(0);
      // The batch was found by primary key instead.
      expect((await indexScans()) - indexBefore).toBeGreaterThan(0);
    } finally {
      await c.query('ROLLBACK');
    }
  });
});
