// @run-alone (test/support/run-alone.ts): starts within 250 ms of their run_at.
import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { sleep, startTestApp, waitFor, withTestDatabase } from '../support';
import { ClaimerService } from '../../src/queue/claim/claimer.service';

/**
 * A scheduled action starts within a few ms of its `runAt`,
 * whatever WORKER_POLL_INTERVAL_MS (here 12 s): a worker that finds nothing
 * to claim sets a timer for the earliest future `runAt` among the heads,
 * including a head promoted with a future `runAt`.
 */
describe('scheduled actions start on time, not at the next poll', () => {
  const db = withTestDatabase('scheduled');
  let c: Client;
  let app: INestApplication;

  beforeAll(async () => {
    ({ app } = await startTestApp(db.url, { WORKER_POLL_INTERVAL_MS: '12000' }));
    c = await db.connect();
  });
  afterAll(async () => {
    await app?.close();
  });

  /** How late (ms) the action started after its run_at, once it has started. */
  const lateness = (id: string) =>
    waitFor(async () => {
      const { rows } = await c.query<{ late_ms: number | null }>(
        `SELECT extract(epoch FROM started_at - run_at) * 1000 AS late_ms FROM actions WHERE id = $1 AND started_at IS NOT NULL`,
        [id],
      );
      return rows[0] ? Number(rows[0].late_ms) : null;
    }, 15_000);

  it('starts an action scheduled 2 s ahead within 250 ms of its runAt', async () => {
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at) VALUES (1, 'instance.create', '{"durationMs": 0}', now() + interval '2 seconds') RETURNING id::text`,
    );
    const late = await lateness(id);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(250);
  });

  it('starts a head promoted with a future runAt on time', async () => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at)
       VALUES (2, 'instance.create', '{"durationMs": 300}', now()),
              (2, 'instance.update', '{"durationMs": 0}', now() + interval '2 seconds')
       RETURNING id::text`,
    );
    const second = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b))[1];
    const late = await lateness(second);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(250);
  });

  it('computes the wait to a runAt 30 days ahead (past the 32-bit millisecond range) and still starts due work', async () => {
    await c.query(`INSERT INTO actions (lock_id, type, run_at) VALUES (3, 'instance.create', now() + interval '30 days')`);
    const waitMs = await app.get(ClaimerService).msUntilNextDue();
    expect(waitMs).toBeGreaterThan(29.9 * 86_400_000);
    expect(waitMs).toBeLessThanOrEqual(30 * 86_400_000);
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at) VALUES (4, 'instance.create', '{"durationMs": 0}', now() + interval '1 second') RETURNING id::text`,
    );
    expect(await lateness(id)).toBeLessThan(250);
  });

  /** Inserts an action on `lockId` that is not due for an hour; the worker has gone idle with its timer set for then. */
  const insertLater = async (lockId: number) => {
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at) VALUES ($1, 'instance.create', '{"durationMs": 0}', now() + interval '1 hour') RETURNING id::text`,
      [lockId],
    );
    await sleep(500);
    return id;
  };

  it('starts at once an action an operator reschedules to now by SQL', async () => {
    const id = await insertLater(5);
    await c.query(`UPDATE actions SET run_at = now() WHERE id = $1`, [id]);
    expect(await lateness(id)).toBeLessThan(250);
  });

  it('starts at once a failed head an operator resets to pending by SQL', async () => {
    const id = await insertLater(6);
    await c.query(`UPDATE actions SET status = 'failed', on_failure = 'block', run_at = now() WHERE id = $1`, [id]);
    await sleep(300);
    const {
      rows: [{ reset_ms }],
    } = await c.query<{ reset_ms: number }>(
      `UPDATE actions SET status = 'pending' WHERE id = $1 RETURNING extract(epoch FROM clock_timestamp())::float8 * 1000 AS reset_ms`,
      [id],
    );
    const late = await lateness(id); // waits until it has started
    const { rows } = await c.query<{ started_ms: number }>(`SELECT extract(epoch FROM started_at)::float8 * 1000 AS started_ms FROM actions WHERE id = $1`, [
      id,
    ]);
    expect(late).toBeGreaterThan(0);
    expect(rows[0].started_ms - reset_ms).toBeLessThan(250);
  });
});
