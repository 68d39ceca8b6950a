import request from 'supertest';
import { connect, sleep, TEST_SERVER_URL, terminateBackends, waitFor, withTestApp } from '../support';

/** Lease length for this spec (ms): short, so a read-only window outlasts it quickly. */
const LEASE_MS = 2_000;

/**
 * Red-team finding: a database that refuses writes for longer than LEASE_MS
 * (a failover) made every running suspect's lease expire; when writes came
 * back the reaper counted that as the suspect lost a third time and charged
 * it 1 + its uncharged losses (3 of a budget of 5), though its instance was
 * alive and healthy all along. A reaper round after rounds the database
 * refused now gives such leases one more LEASE_MS, so their live owners
 * release them uncharged (012-unknown-leases) and only the dead owners'
 * expire again as losses.
 */
describe('a suspect running through a read-only database window', () => {
  const t = withTestApp('suspect_read_only', {
    env: { DEMO_HANDLERS: 'true', LEASE_MS: String(LEASE_MS), REAPER_INTERVAL_MS: '200', WORKER_POLL_INTERVAL_MS: '200' },
  });

  const setReadOnly = async (on: boolean) => {
    const admin = await connect(TEST_SERVER_URL);
    try {
      await admin.query(
        on ? `ALTER DATABASE "${t.db.name}" SET default_transaction_read_only = on` : `ALTER DATABASE "${t.db.name}" RESET default_transaction_read_only`,
      );
    } finally {
      await admin.end();
    }
    await terminateBackends(t.db.name);
  };

  afterAll(async () => {
    const admin = await connect(TEST_SERVER_URL);
    await admin.query(`ALTER DATABASE "${t.db.name}" RESET default_transaction_read_only`).finally(() => admin.end());
  });

  it('is not charged when its lease expired only because writes were refused', async () => {
    const before = await connect(t.db.url);
    const created = await request(t.url)
      .post('/actions')
      .send({ type: 'instance.create', lockId: '41', payload: { durationMs: 600_000 }, runAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // Lost twice in a row already: a suspect, due now.
    try {
      await before.query(`UPDATE actions SET attempts = 2, quarantined = true, uncharged_losses = 2, run_at = now() WHERE id = $1`, [id]);
      await waitFor(async () => (await before.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'running', 10_000);
    } finally {
      await before.end();
    }

    await setReadOnly(true);
    // Long enough for the lease to expire while writes are refused.
    await sleep(LEASE_MS * 3);
    await setReadOnly(false);

    const again = await connect(t.db.url);
    try {
      // Settled: the attempt from before the window has ended in the trace.
      await waitFor(async () => (await again.query(`SELECT count(*)::int AS n FROM action_attempts WHERE action_id = $1`, [id])).rows[0].n >= 1, 20_000);
      const { rows } = await again.query<{ charged_attempts: number; outcome: string }>(
        `SELECT a.charged_attempts, x.outcome FROM actions AS a JOIN action_attempts AS x ON x.action_id = a.id WHERE a.id = $1 ORDER BY x.id LIMIT 1`,
        [id],
      );
      expect(rows[0]).toEqual({ charged_attempts: 0, outcome: 'released' });
    } finally {
      await again.end();
    }
  });

  it('still reaps, as a loss, the lease of an owner that is gone, a grace after the window', async () => {
    const db = await connect(t.db.url);
    try {
      const created = await request(t.url)
        .post('/actions')
        .send({ type: 'instance.create', lockId: '42', payload: { durationMs: 0 }, runAt: new Date(Date.now() + 3_600_000).toISOString() });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      // Leased to an instance that died: nobody renews or releases it.
      await db.query(
        `UPDATE actions SET status = 'running', attempts = 1, lease_owner = 'gone-1', lease_expires_at = now() + interval '1 second',
                attempt_started_at = now(), started_at = now() WHERE id = $1`,
        [id],
      );
      await db.end();
      await setReadOnly(true);
      await sleep(LEASE_MS * 2);
      await setReadOnly(false);
      const after = await connect(t.db.url);
      try {
        await waitFor(async () => (await after.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'done', 30_000);
        const { rows } = await after.query<{ outcome: string; worker_id: string }>(
          `SELECT outcome, worker_id FROM action_attempts WHERE action_id = $1 ORDER BY id`,
          [id],
        );
        expect(rows).toEqual([
          { outcome: 'lease_expired', worker_id: 'gone-1' },
          { outcome: 'done', worker_id: expect.not.stringMatching(/^gone-1$/) },
        ]);
      } finally {
        await after.end();
      }
    } finally {
      await db.end().catch(() => undefined);
    }
  });
});
