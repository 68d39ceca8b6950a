import request from 'supertest';
import type { Client } from 'pg';
import { metricSample, waitFor, withTestApp } from '../support';

/** A running action of `instance.create` (runs `durationMs`), leased to a dead worker for 1 ms after one uncharged loss: its reaping is its second loss. */
async function loseTwice(c: Client, durationMs: number): Promise<string> {
  await c.query('BEGIN');
  try {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (type, payload) VALUES ('instance.create', jsonb_build_object('durationMs', $1::int)) RETURNING id::text`,
      [durationMs],
    );
    await c.query(`UPDATE actions SET uncharged_losses = 1 WHERE id = $1`, [rows[0].id]);
    const { rows: leased } = await c.query(`SELECT id::text FROM aq_claim_actions('dead-worker', ARRAY['instance.create'], ARRAY[NULL::int], 1, 1, false)`);
    expect(leased.map((r) => r.id)).toEqual([rows[0].id]);
    await c.query('COMMIT');
    return rows[0].id;
  } catch (error) {
    await c.query('ROLLBACK');
    throw error;
  }
}

/**
 * A suspect (an action lost with its instance twice in a row, migration 011)
 * is woken by a notification, not found by the next poll, and the instance
 * running it says so in /health and /metrics. The poll is set to 10 minutes so
 * that only the wake-up can start the suspect in time.
 *
 * Seen failing before the change: the suspect was not started within the
 * bound (it waited for the 10-minute poll), and /health had no `suspect`. The
 * scheduled case was seen failing with the suspect's due timer removed
 * (WorkerService.armDueTimer), and with it but without the claim round handing
 * its unused slots to a suspect that came due meanwhile.
 */
describe('a suspect is started at once and visible', () => {
  const t = withTestApp('suspect_visibility', {
    env: { WORKER_POLL_INTERVAL_MS: '600000', REAPER_INTERVAL_MS: '100', LEASE_MS: '30000', WORKER_CONCURRENCY: '4' },
  });

  const worker = async () => (await request(t.url).get('/health')).body.details.worker;

  it('runs a new suspect within seconds of its reaping, however long the poll, and reports it in /health and /metrics', async () => {
    expect((await worker()).suspect).toBeNull();
    const id = await loseTwice(t.pg, 60_000);
    const reapedAt = Date.now();
    // Running under this instance's lease (not the dead worker's), as the suspect.
    await waitFor(async () => {
      const { rows } = await t.pg.query(`SELECT status, lease_owner, quarantined FROM actions WHERE id = $1`, [id]);
      return rows[0].status === 'running' && rows[0].lease_owner !== 'dead-worker' && rows[0].quarantined;
    }, 10_000);
    // Reaper interval 100 ms + a claim: seconds at most on a loaded machine, against the 10-minute poll.
    expect(Date.now() - reapedAt).toBeLessThan(8_000);

    const suspect = await waitFor(async () => (await worker()).suspect, 5_000);
    expect(suspect).toEqual({ actionId: id, runningForMs: expect.any(Number) });
    expect(suspect.runningForMs).toBeGreaterThanOrEqual(0);
    expect(suspect.runningForMs).toBeLessThan(60_000);
    const health = await request(t.url).get('/health');
    expect(health.status).toBe(200);

    const metrics = (await request(t.url).get('/metrics')).text;
    expect(metricSample(metrics, 'action_queue_worker_suspect_running')).toBe(1);
    expect(metricSample(metrics, 'action_queue_worker_suspect_running_seconds')).toBeGreaterThanOrEqual(0);

    // Cancelled, it ends and the slot is no longer a suspect's.
    expect((await request(t.url).post(`/actions/${id}/cancel`)).status).toBe(200);
    await waitFor(async () => (await worker()).suspect === null, 10_000);
    expect(metricSample((await request(t.url).get('/metrics')).text, 'action_queue_worker_suspect_running')).toBe(0);
  });

  it('starts a suspect scheduled ahead when it comes due, not at the next poll', async () => {
    // A suspect waiting for its run_at, as after a reaping with a delay; made so by SQL (an insert is never
    // a suspect), in a group of its own.
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at) VALUES (9001, 'instance.create', '{"durationMs": 0}', now() + interval '1500 milliseconds')
       RETURNING id::text`,
    );
    await t.pg.query(`UPDATE actions SET quarantined = true WHERE id = $1`, [rows[0].id]);
    const id = rows[0].id;
    const insertedAt = Date.now();
    // Ran as a suspect: an attempt that ends normally clears `quarantined`, and only the SuspectRunner claims one.
    await waitFor(async () => (await t.pg.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'done', 15_000);
    // Due after 1.5 s; the next poll is 10 minutes away.
    expect(Date.now() - insertedAt).toBeLessThan(10_000);
  });
});

describe('a suspect is started at once without a LISTEN connection', () => {
  // Behind a transaction pooler with no LISTEN_DATABASE_URL there is no notification: the reaping instance asks itself.
  const t = withTestApp('suspect_pooled', {
    env: { DATABASE_POOLER: 'transaction', WORKER_POLL_INTERVAL_MS: '600000', REAPER_INTERVAL_MS: '100', WORKER_CONCURRENCY: '4' },
  });

  // Seen failing before the reaper asked its own SuspectRunner: the suspect waited for the 10-minute poll.
  it('runs the suspect its own reaper made, within seconds', async () => {
    const id = await loseTwice(t.pg, 0);
    const reapedAt = Date.now();
    await waitFor(async () => (await t.pg.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'done', 15_000);
    expect(Date.now() - reapedAt).toBeLessThan(8_000);
  });
});
