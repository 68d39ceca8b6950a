import { Client } from 'pg';
import request from 'supertest';
import { connect, waitFor, waitForLockWaiters, withTestApp } from '../support';

/** A failed action under `skip` is re-enqueued at most once, however many retries race. */
describe('retry of a failed skip action', () => {
  const t = withTestApp('skipretry', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  const db = t.db;
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  it('re-enqueues a failed skip action once even when two retries race', async () => {
    const created = await request(url)
      .post('/actions')
      .send({ type: 'instance.create', lockId: '5151', maxAttempts: 1, onFailure: 'skip', payload: { failAttempts: 1, durationMs: 0 } })
      .expect(201);
    await waitFor(async () => (await request(url).get(`/actions/${created.body.id}`)).body.status === 'failed');
    // Hold the row so both retries queue on its lock, then let them go together.
    const holder = await connect(db.url);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM actions WHERE id = $1 FOR UPDATE', [created.body.id]);
    const both = Promise.all([request(url).post(`/actions/${created.body.id}/retry`), request(url).post(`/actions/${created.body.id}/retry`)]);
    // Both retries really race: each waits on the held row lock before it is let go (a sleep
    // here let a loaded machine run them one after the other). Seen to fail (500 instead of
    // 409) with the service's unique-violation → 409 mapping removed.
    await waitForLockWaiters(db.name, 2);
    await holder.query('COMMIT');
    await holder.end();
    const codes = (await both).map((r) => r.status).sort();
    expect(codes).toEqual([200, 409]);
    const copies = await sql.query(`SELECT id FROM actions WHERE retry_of = $1`, [created.body.id]);
    expect(copies.rowCount).toBe(1);
  });
});
