import { Client } from 'pg';
import request from 'supertest';
import { connect, sleep, waitFor, withTestApp } from '../support';

/** A producer's open transaction holds only the groups it inserted into. */
describe('a producer holding one group open', () => {
  const t = withTestApp('openproducer', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  const db = t.db;
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  it('lets the rest of a finishing batch go on while a producer holds one group open', async () => {
    // Four heads run together on this worker (concurrency 4): groups 9100..9103.
    const { body } = await request(url)
      .post('/actions/batch')
      .send({ actions: [9100, 9101, 9102, 9103].map((g) => ({ type: 'instance.update', lockId: g, payload: { durationMs: 300 } })) })
      .expect(201);
    const ids: string[] = body.actions.map((a: { id: string }) => a.id);
    await waitFor(async () => (await sql.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'running'`, [ids])).rows[0].n === 4);
    // A producer enqueues into group 9100 and keeps its transaction open.
    const producer = await connect(db.url);
    await producer.query('BEGIN');
    await producer.query(`INSERT INTO actions (lock_id, type, payload) VALUES (9100, 'instance.update', '{"durationMs": 0}')`);
    const started = Date.now();
    // The other three finish at their own pace...
    await waitFor(
      async () => (await sql.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [ids.slice(1)])).rows[0].n === 3,
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    // ...while the head of 9100 waits for the producer to commit.
    await sleep(500);
    expect((await sql.query(`SELECT status FROM actions WHERE id = $1`, [ids[0]])).rows[0].status).toBe('running');
    await producer.query('COMMIT');
    await producer.end();
    await waitFor(async () => (await sql.query(`SELECT count(*)::int AS n FROM actions WHERE lock_id = 9100 AND status = 'done'`)).rows[0].n === 2, 10_000);
    const order = await sql.query(
      `SELECT a.id FROM actions a JOIN action_attempts t ON t.action_id = a.id AND t.outcome = 'done' WHERE a.lock_id = 9100 ORDER BY t.started_at`,
    );
    expect(order.rows.map((r) => r.id)).toEqual([...order.rows.map((r) => r.id)].sort((x, y) => Number(x) - Number(y)));
  });
});
