import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { SQL_MIGRATIONS_DIR } from '../../src/database/migrations/sql-file-migration';
import { withTestDatabase } from '../support';

/**
 * The rule for attempts lost with their instance
 * (src/database/sql/011-lost-attempts-in-parallel.up.sql, 047-singled-losses.up.sql),
 * on the SQL alone: re-run at once and uncharged; a suspect from the second
 * loss in a row when lost alone (test/database/shared-losses.db-spec.ts has
 * the losses shared with other actions); a
 * suspect's loss charged, within its budget. A "loss" here is a lease the
 * reaper finds expired, as after a SIGKILL.
 */
describe('attempts lost with their instance', () => {
  const db = withTestDatabase('lost_attempts');
  let c: Client;

  beforeAll(async () => {
    c = await db.connect();
  });

  /** Inserts an action of a type of its own (`test.lost.<lockId>`): claims in one test never take another test's actions. */
  async function insert(lockId: number, maxAttempts: number): Promise<string> {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, max_attempts) VALUES ($1::bigint, 'test.lost.' || $1::text, $2) RETURNING id::text`,
      [lockId, maxAttempts],
    );
    return rows[0].id;
  }

  /** Worker ids, one per lost instance: an instance's losses are company to its later ones (047). */
  let instances = 0;

  /** Leases `id` to a worker of its own for 1 ms (as a suspect when it is one), lets the lease expire and runs the reaper. */
  async function loseOnce(id: string): Promise<{ status: string; charged: number }> {
    const { rows } = await c.query<{ quarantined: boolean; type: string }>(`SELECT quarantined, type FROM actions WHERE id = $1`, [id]);
    const { rows: leased } = await c.query(`SELECT id FROM aq_claim_actions($3, ARRAY[$1], ARRAY[NULL::int], 100, 1, $2)`, [
      rows[0].type,
      rows[0].quarantined,
      `lost-worker-${++instances}`,
    ]);
    expect(leased.map((r) => String(r.id))).toContain(id);
    await c.query(`SELECT pg_sleep(0.01)`);
    const { rows: reaped } = await c.query(`SELECT action_id::text, status, charged FROM aq_reap_expired_leases(100)`);
    const mine = reaped.find((r) => r.action_id === id);
    return { status: mine.status, charged: mine.charged };
  }

  const row = async (id: string) =>
    (
      await c.query(
        `SELECT status, quarantined, uncharged_losses, charged_attempts, run_at <= now() AS due, (SELECT error FROM action_attempts t WHERE t.action_id = a.id ORDER BY t.id DESC LIMIT 1) AS trace
         FROM actions a WHERE id = $1`,
        [id],
      )
    ).rows[0];

  it('re-runs a first loss at once, uncharged and not suspected, so a crash recovers in parallel', async () => {
    const ids = [await insert(1, 1), await insert(2, 1), await insert(3, 1)];
    const types = ['test.lost.1', 'test.lost.2', 'test.lost.3'];
    await c.query(`SELECT pg_sleep(0.01)`);
    await c.query(`SELECT id FROM aq_claim_actions('lost-worker', $1, ARRAY[NULL, NULL, NULL]::int[], 100, 1, false)`, [types]);
    await c.query(`SELECT pg_sleep(0.01)`);
    await c.query(`SELECT * FROM aq_reap_expired_leases(100)`);
    for (const id of ids) {
      expect(await row(id)).toEqual({
        status: 'pending',
        quarantined: false,
        uncharged_losses: 1,
        charged_attempts: 0,
        due: true,
        trace: 'lease expired (not charged; lost with 2 others; run again at once)',
      });
    }
    // All three are claimable together by an ordinary claim: nothing waits to run alone.
    const { rows } = await c.query(`SELECT id FROM aq_claim_actions('other-worker', $1, ARRAY[NULL, NULL, NULL]::int[], 100, 60000, false)`, [types]);
    expect(rows.map((r) => String(r.id)).sort()).toEqual([...ids].sort());
  });

  it('suspects an action lost twice in a row, charges its next loss within its budget', async () => {
    const id = await insert(10, 2);
    expect(await loseOnce(id)).toEqual({ status: 'pending', charged: 0 });
    expect(await loseOnce(id)).toEqual({ status: 'pending', charged: 0 });
    expect(await row(id)).toMatchObject({
      quarantined: true,
      uncharged_losses: 2,
      charged_attempts: 0,
      trace: 'lease expired (not charged; lost 2 times in a row, this time alone: now a suspect)',
    });
    // An ordinary claim leaves a suspect to the SuspectRunner's claim.
    const { rows } = await c.query(`SELECT id FROM aq_claim_actions('other-worker', ARRAY['test.lost.10'], ARRAY[NULL::int], 100, 60000, false)`);
    expect(rows).toEqual([]);
    // Lost again as a suspect: 1 + its 2 uncharged losses, capped at its budget of 2, which fails it.
    expect(await loseOnce(id)).toEqual({ status: 'failed', charged: 2 });
    expect(await row(id)).toMatchObject({ status: 'failed', charged_attempts: 2, trace: 'lease expired (charged: lost again as a suspect, alone)' });
  });

  it('keeps a charged suspect suspected: each further loss costs one attempt', async () => {
    const id = await insert(20, 5);
    await loseOnce(id);
    await loseOnce(id);
    expect(await loseOnce(id)).toEqual({ status: 'pending', charged: 3 });
    expect(await row(id)).toMatchObject({ quarantined: true, uncharged_losses: 0, charged_attempts: 3 });
    expect(await loseOnce(id)).toEqual({ status: 'pending', charged: 1 });
    expect(await loseOnce(id)).toEqual({ status: 'failed', charged: 1 });
  });

  it('charges a known culprit (the watchdog named it) for its attempt and the uncharged loss before it, and suspects it', async () => {
    const id = await insert(30, 3);
    expect(await loseOnce(id)).toEqual({ status: 'pending', charged: 0 });
    await c.query(`SELECT id FROM aq_claim_actions('dying-worker', ARRAY['test.lost.30'], ARRAY[NULL::int], 100, 60000, false)`);
    const { rows } = await c.query(`SELECT action_id::text, status, charged FROM aq_release_worker('dying-worker', $1, 'blocked the event loop', 0)`, [id]);
    expect(rows).toEqual([{ action_id: id, status: 'pending', charged: 2 }]);
    expect(await row(id)).toMatchObject({ quarantined: true, uncharged_losses: 0, charged_attempts: 2 });
    // Lost again, now as a suspect: its last attempt.
    expect(await loseOnce(id)).toEqual({ status: 'failed', charged: 1 });
  });

  it('releases the leases a worker has but does not hold (their answer never arrived), uncharged and not as losses; never one granted after the cutoff', async () => {
    const held = await insert(50, 3);
    const unknown = await insert(51, 3);
    expect(await loseOnce(unknown)).toEqual({ status: 'pending', charged: 0 });
    const types = ['test.lost.50', 'test.lost.51'];
    const {
      rows: [{ before }],
    } = await c.query(`SELECT clock_timestamp()::text AS before`);
    await c.query(`SELECT id FROM aq_claim_actions('partitioned', $1, ARRAY[NULL, NULL]::int[], 100, 60000, false)`, [types]);
    // Granted after the cutoff: kept, whatever the worker says it holds.
    expect((await c.query(`SELECT * FROM aq_release_unknown_leases('partitioned', ARRAY[]::bigint[], $1)`, [before])).rows).toEqual([]);
    const { rows } = await c.query(
      `SELECT action_id::text, status, charged FROM aq_release_unknown_leases('partitioned', ARRAY[$1::bigint], clock_timestamp())`,
      [held],
    );
    expect(rows).toEqual([{ action_id: unknown, status: 'pending', charged: 0 }]);
    // Its one earlier loss still counts, no more: not a suspect, due at once.
    expect(await row(unknown)).toMatchObject({ status: 'pending', quarantined: false, uncharged_losses: 1, charged_attempts: 0, due: true });
    const { rows: trace } = await c.query(`SELECT outcome, error FROM action_attempts WHERE action_id = $1 ORDER BY id DESC LIMIT 1`, [unknown]);
    expect(trace).toEqual([{ outcome: 'released', error: 'released: lease granted by a statement whose answer never arrived' }]);
    expect((await row(held)).status).toBe('running');
  });

  it('upgrades work in flight: an action 008 quarantined at its first loss is no suspect after 011 (and is again after its down)', async () => {
    const migration = (direction: 'up' | 'down') => readFileSync(join(SQL_MIGRATIONS_DIR, `011-lost-attempts-in-parallel.${direction}.sql`), 'utf8');
    const id = await insert(40, 3);
    try {
      await c.query(migration('down'));
      await loseOnce(id);
      expect(await row(id)).toMatchObject({ status: 'pending', quarantined: true, uncharged_losses: 1 });
    } finally {
      await c.query(migration('up'));
    }
    expect(await row(id)).toMatchObject({ status: 'pending', quarantined: false, uncharged_losses: 1, charged_attempts: 0 });
    await c.query(migration('down'));
    expect(await row(id)).toMatchObject({ quarantined: true, uncharged_losses: 1 });
    await c.query(migration('up'));
  });
});
