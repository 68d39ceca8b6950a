import { Client } from 'pg';
import { withTestDatabase } from '../support';

/**
 * Losses that every action of a dying instance shares are weak evidence
 * against each of them (src/database/sql/047-singled-losses.up.sql), on the
 * SQL alone. A loss singles an action out when its instance lost it with at
 * most one other; an action is a suspect at its 2nd loss in a row if either
 * loss singled it out, at its 3rd regardless. A "crash" here is a worker
 * whose leases (1 ms) expire, then a reaper round, as after a SIGKILL.
 */
describe('losses shared with the other actions of an instance', () => {
  const db = withTestDatabase('shared_losses');
  let c: Client;
  let nextLock = 1;
  /** Makes the worker ids of each test its own: an instance's losses count as company for 5 minutes. */
  let testNo = 0;

  beforeAll(async () => {
    c = await db.connect();
  });
  beforeEach(() => {
    testNo++;
  });

  /** Inserts `n` actions, each of a type of its own (claims in one test never take another's). */
  async function insert(n: number, maxAttempts = 2): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const lock = nextLock++;
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, max_attempts) VALUES ($1::bigint, 'test.shared.' || $1::text, $2) RETURNING id::text`,
        [lock, maxAttempts],
      );
      ids.push(rows[0].id);
    }
    return ids;
  }

  /** Leases `ids` to `worker` for `leaseMs` (ordinary claim, or the suspect claim: one at a time). */
  async function lease(name: string, ids: string[], leaseMs = 1): Promise<void> {
    const worker = `${name}-${testNo}`;
    await c.query(`SELECT pg_sleep(0.005)`);
    for (const id of ids) {
      const { rows } = await c.query<{ quarantined: boolean; type: string }>(`SELECT quarantined, type FROM actions WHERE id = $1`, [id]);
      const { rows: leased } = await c.query(`SELECT id::text FROM aq_claim_actions($1, ARRAY[$2], ARRAY[NULL::int], 1, $3, $4)`, [
        worker,
        rows[0].type,
        leaseMs,
        rows[0].quarantined,
      ]);
      expect(leased.map((r) => r.id)).toEqual([id]);
    }
  }

  /** Every lease of `ids` expires with its worker, and a reaper round ends them (`limit` at a time). */
  async function crash(worker: string, ids: string[], limit = 100): Promise<void> {
    await lease(worker, ids);
    await c.query(`SELECT pg_sleep(0.01)`);
    for (;;) {
      const { rows } = await c.query(`SELECT * FROM aq_reap_expired_leases($1)`, [limit]);
      if (rows.length < limit) break;
    }
  }

  const state = async (id: string) =>
    (
      await c.query(
        `SELECT status, quarantined, uncharged_losses, singled_losses, charged_attempts,
                (SELECT error FROM action_attempts t WHERE t.action_id = a.id ORDER BY t.id DESC LIMIT 1) AS trace
         FROM actions a WHERE id = $1`,
        [id],
      )
    ).rows[0];

  it('re-runs actions lost together in two crashes in a row in parallel, and suspects them at the third', async () => {
    const ids = await insert(4);
    await crash('node-a', ids);
    await crash('node-b', ids);
    for (const id of ids) {
      expect(await state(id)).toEqual({
        status: 'pending',
        quarantined: false,
        uncharged_losses: 2,
        singled_losses: 0,
        charged_attempts: 0,
        trace: 'lease expired (not charged; lost with 3 others; run again at once)',
      });
    }
    // An ordinary claim takes all four at once: no suspect waits to run alone.
    const { rows } = await c.query(
      `SELECT id::text FROM aq_claim_actions($2, ARRAY(SELECT type FROM actions WHERE id = ANY($1::bigint[])), ARRAY[NULL, NULL, NULL, NULL]::int[], 10, 1, false)`,
      [ids, `node-c-${testNo}`],
    );
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    await c.query(`SELECT pg_sleep(0.01)`);
    await c.query(`SELECT * FROM aq_reap_expired_leases(100)`);
    for (const id of ids) {
      expect(await state(id)).toMatchObject({
        quarantined: true,
        uncharged_losses: 3,
        charged_attempts: 0,
        trace: 'lease expired (not charged; lost 3 times in a row, this time with 3 others: now a suspect)',
      });
    }
  });

  it('suspects an action at its 2nd loss in a row when either loss singled it out (alone, or with one other)', async () => {
    // Shared, then alone.
    const [a, ...others] = await insert(4);
    await crash('node-a', [a, ...others]);
    await crash('node-b', [a]);
    expect(await state(a)).toMatchObject({ quarantined: true, uncharged_losses: 2, singled_losses: 1 });
    expect((await state(a)).trace).toBe('lease expired (not charged; lost 2 times in a row, this time alone: now a suspect)');
    // Alone with one other, then shared.
    const [b, partner] = await insert(2);
    const crowd = await insert(3);
    await crash('node-c', [b, partner]);
    expect(await state(b)).toMatchObject({
      quarantined: false,
      uncharged_losses: 1,
      singled_losses: 1,
      trace: 'lease expired (not charged; lost with 1 other; run again at once)',
    });
    await crash('node-d', [b, ...crowd]);
    expect(await state(b)).toMatchObject({ quarantined: true, uncharged_losses: 2, singled_losses: 1 });
    expect(await state(crowd[0])).toMatchObject({ quarantined: false, uncharged_losses: 1, singled_losses: 0 });
  });

  it('counts as company the leases of the same instance that expired or were lost in an earlier reaper round', async () => {
    const ids = await insert(3);
    await crash('node-a', ids, 1);
    await crash('node-b', ids, 1);
    for (const id of ids) expect(await state(id)).toMatchObject({ quarantined: false, uncharged_losses: 2, singled_losses: 0 });
    // A lease of that instance that expires later (claimed after its last heartbeat): a later round, same company.
    const [late] = await insert(1);
    await lease('node-b', [late], 2_000);
    await c.query(`SELECT pg_sleep(2.1)`);
    await c.query(`SELECT * FROM aq_reap_expired_leases(100)`);
    expect(await state(late)).toMatchObject({
      uncharged_losses: 1,
      singled_losses: 0,
      trace: 'lease expired (not charged; lost with 3 others; run again at once)',
    });
    // Another instance's leases are not company: lost at the same moment, each alone on its own.
    const [x, y] = await insert(2);
    await lease('node-x', [x]);
    await lease('node-y', [y]);
    await c.query(`SELECT pg_sleep(0.01)`);
    await c.query(`SELECT * FROM aq_reap_expired_leases(100)`);
    expect(await state(x)).toMatchObject({ uncharged_losses: 1, singled_losses: 1, trace: 'lease expired (not charged; lost alone; run again at once)' });
  });

  it('counts every running attempt of an instance its watchdog released without a culprit as company; with a culprit, the others are no losses', async () => {
    const ids = await insert(3);
    for (const round of ['w1', 'w2']) {
      await lease(round, ids, 60_000);
      await c.query(`SELECT * FROM aq_release_worker($1, NULL, 'instance fenced: its event loop stalled', 0)`, [`${round}-${testNo}`]);
    }
    for (const id of ids) {
      expect(await state(id)).toMatchObject({
        quarantined: false,
        uncharged_losses: 2,
        singled_losses: 0,
        trace: 'instance fenced: its event loop stalled (not charged; lost with 2 others; run again at once)',
      });
    }
    await lease('w3', ids, 60_000);
    await c.query(`SELECT * FROM aq_release_worker($1, $2, 'blocked the event loop', 0)`, [`w3-${testNo}`, ids[0]]);
    expect(await state(ids[0])).toMatchObject({ quarantined: true, uncharged_losses: 0, singled_losses: 0, charged_attempts: 2, status: 'failed' });
    expect(await state(ids[1])).toMatchObject({ quarantined: false, uncharged_losses: 2, singled_losses: 0, charged_attempts: 0 });
  });

  it('forgets the singling losses of a run that an attempt ended normally', async () => {
    const [id] = await insert(1, 5);
    const crowd = await insert(3);
    await crash('node-a', [id]);
    expect(await state(id)).toMatchObject({ uncharged_losses: 1, singled_losses: 1 });
    // An attempt that fails (charged, retried) ends the run of losses.
    await lease('node-b', [id], 60_000);
    const { rows } = await c.query(`SELECT attempts FROM actions WHERE id = $1`, [id]);
    await c.query(
      `SELECT * FROM aq_finish_attempts($3, ARRAY[$1::bigint], ARRAY[$2::int], ARRAY['pending'], ARRAY[NULL::jsonb], ARRAY['boom'], ARRAY[NULL::text],
         ARRAY[0], ARRAY['error'], ARRAY[1], '{}', '{}', 60000, 0)`,
      [id, rows[0].attempts, `node-b-${testNo}`],
    );
    expect(await state(id)).toMatchObject({ uncharged_losses: 0, charged_attempts: 1 });
    // Two shared losses after it: no suspect.
    await crash('node-c', [id, ...crowd]);
    await crash('node-d', [id, ...crowd]);
    expect(await state(id)).toMatchObject({ quarantined: false, uncharged_losses: 2, singled_losses: 0 });
  });

  it('bounds a poison: alone, 3 executions on a budget of 2; with company every time, 4 on a budget of 2 and budget + 1 on a budget of 3', async () => {
    /** Crashes `id` (with `company` innocents leased beside it on the same instance) until it is no longer pending; returns its executions. */
    const executionsToFail = async (id: string, company: number): Promise<number> => {
      let executions = 0;
      while ((await state(id)).status === 'pending') {
        const innocents = await insert(company);
        await crash(`node-${nextLock}`, [id, ...innocents]);
        executions++;
        expect(executions).toBeLessThan(10);
      }
      expect(await state(id)).toMatchObject({ status: 'failed' });
      return executions;
    };
    expect(await executionsToFail((await insert(1, 2))[0], 0)).toBe(3);
    expect(await executionsToFail((await insert(1, 2))[0], 3)).toBe(4);
    expect(await executionsToFail((await insert(1, 3))[0], 3)).toBe(4);
    expect(await executionsToFail((await insert(1, 4))[0], 0)).toBe(4);
  });
});
