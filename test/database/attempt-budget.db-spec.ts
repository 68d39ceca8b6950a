import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { MisbehavingHandlersModule } from '../fixtures/misbehaving-handlers';
import { startTestApp, waitFor, withTestDatabase } from '../support';

/**
 * The number of attempts the API shows is the number enforced (a
 * handler's `maxAttempts` cap included), a manual retry grants a fresh budget,
 * and a release (shutdown) never consumes budget. `test.flaky` is capped at 2
 * by its handler options and fails its first `failAttempts` attempts.
 */
describe('attempt budget', () => {
  const db = withTestDatabase('budget');
  let c: Client;
  let app: INestApplication | null = null;

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  const start = async (env: Record<string, string> = {}) => {
    const started = await startTestApp(db.url, { DEMO_HANDLERS: 'false', WORKER_POLL_INTERVAL_MS: '50', ...env }, [MisbehavingHandlersModule]);
    app = started.app;
    return started.url;
  };
  const get = async (url: string, id: string) => (await request(url).get(`/actions/${id}`).expect(200)).body;

  it("shows the handler's cap from the start, enforces exactly it, and a manual retry grants it again", async () => {
    const url = await start();
    const created = await request(url)
      .post('/actions')
      .send({ type: 'test.flaky', lockId: '1', maxAttempts: 7, payload: { failAttempts: 3 } })
      .expect(201);
    expect(created.body.maxAttempts).toBe(2);
    const id = created.body.id as string;
    await waitFor(async () => (await get(url, id)).status === 'failed', 10_000);
    expect(await get(url, id)).toMatchObject({ status: 'failed', attempts: 2, chargedAttempts: 2, maxAttempts: 2 });

    const retried = await request(url).post(`/actions/${id}/retry`).expect(200);
    expect(retried.body).toMatchObject({ status: 'pending', maxAttempts: 2, chargedAttempts: 0 });
    // A fresh budget of 2: attempt 3 fails (failAttempts 3), attempt 4 succeeds.
    await waitFor(async () => (await get(url, id)).status === 'done', 10_000);
    const done = await get(url, id);
    expect(done).toMatchObject({ status: 'done', attempts: 4, chargedAttempts: 1, maxAttempts: 2, result: { attempt: 4 } });
    expect(done.trace.map((t: { outcome: string }) => t.outcome)).toEqual(['error', 'error', 'error', 'done']);
  });

  it('writes the cap into an action enqueued with plain SQL at its first claim', async () => {
    const url = await start();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (2, 'test.flaky', '{"failAttempts": 5}') RETURNING id::text`);
    await waitFor(async () => (await get(url, id)).status === 'failed', 10_000);
    expect(await get(url, id)).toMatchObject({ attempts: 2, maxAttempts: 2, chargedAttempts: 2 });
  });

  it('never charges a release: a shutdown release followed by one error still leaves the budget for a retry', async () => {
    await start({ SHUTDOWN_TIMEOUT_MS: '0' });
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload) VALUES (3, 'test.flaky', '{"ms": 5000, "failAttempts": 2}') RETURNING id::text`,
    );
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'running');
    await app!.close(); // SIGTERM-like: the running attempt is released
    app = null;
    const released = await c.query(`SELECT status, attempts, charged_attempts, max_attempts FROM actions WHERE id = $1`, [id]);
    expect(released.rows[0]).toEqual({ status: 'pending', attempts: 1, charged_attempts: 0, max_attempts: 2 });
    await c.query(`UPDATE actions SET payload = '{"ms": 10, "failAttempts": 2}' WHERE id = $1`, [id]);
    const url = await start();
    // Attempt 2 fails (charged 1 of 2), attempt 3 succeeds.
    await waitFor(async () => (await get(url, id)).status === 'done', 10_000);
    const done = await get(url, id);
    expect(done).toMatchObject({ attempts: 3, chargedAttempts: 1, maxAttempts: 2 });
    expect(done.trace.map((t: { outcome: string }) => t.outcome)).toEqual(['released', 'error', 'done']);
  });
});
