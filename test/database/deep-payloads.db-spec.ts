import { Client } from 'pg';
import request from 'supertest';
import { waitFor, withTestApp } from '../support';

/** A payload stored by SQL deeper than JSON.stringify can recurse still runs and reads back intact. */
describe('payloads nested deeper than JSON.stringify can recurse', () => {
  const t = withTestApp('deeppayload', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  it('runs an action whose payload is nested 8 000 levels deep (stored by SQL) and reads it back', async () => {
    const depth = 8000; // JSON.stringify and structured cloning overflow the stack from about 4 000
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO actions (type, payload) VALUES ('instance.create', ('{"durationMs": 0, "d":' || repeat('[', $1) || repeat(']', $1) || '}')::jsonb) RETURNING id::text`,
      [depth],
    );
    const done = await waitFor(async () => {
      const res = await request(url).get(`/actions/${rows[0].id}`).expect(200);
      return res.body.status === 'done' ? res : null;
    });
    expect(done.body.attempts).toBe(1);
    expect(done.text).toContain(`"d":${'['.repeat(depth)}${']'.repeat(depth)}`);
  });
});
