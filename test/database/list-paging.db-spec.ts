import { Client } from 'pg';
import request from 'supertest';
import { withTestApp } from '../support';

/** Ids of different digit counts sort differently as text; paging follows numeric id order. */
describe('GET /actions paging', () => {
  const t = withTestApp('listpaging', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  it('pages through GET /actions in numeric id order, following nextCursor without skipping', async () => {
    // Ids of different digit counts sort differently as text ("10" < "9").
    await sql.query(`INSERT INTO actions (lock_id, type, payload, run_at)
                     SELECT 424242, 'instance.create', '{}', now() + interval '1 day' FROM generate_series(1, 23)`);
    const all: string[] = [];
    let after = '0';
    for (;;) {
      const res = await request(url).get(`/actions?lockId=424242&limit=5&after=${after}`).expect(200);
      all.push(...res.body.items.map((a: { id: string }) => a.id));
      if (!res.body.nextCursor) break;
      after = res.body.nextCursor;
    }
    const unfiltered: string[] = [];
    after = '0';
    for (;;) {
      const res = await request(url).get(`/actions?limit=7&after=${after}`).expect(200);
      unfiltered.push(...res.body.items.map((a: { id: string }) => a.id));
      if (!res.body.nextCursor) break;
      after = res.body.nextCursor;
    }
    const expected = (await sql.query<{ id: string }>(`SELECT id::text AS id FROM actions WHERE lock_id = 424242 ORDER BY actions.id`)).rows.map((r) => r.id);
    expect(all).toEqual(expected);
    expect(unfiltered.filter((id) => expected.includes(id))).toEqual(expected);
    expect(unfiltered.map(BigInt)).toEqual([...unfiltered.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    await sql.query(`DELETE FROM actions WHERE lock_id = 424242`);
  });
});
