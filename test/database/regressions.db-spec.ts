import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { connect, sleep, waitFor, waitForLockWaiters, withTestApp } from '../support';

/** Regressions found by trying to break the service (each once answered wrongly). */
describe('regressions from the break-it review', () => {
  const t = withTestApp('regress', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  const db = t.db;
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  const count = async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;

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

  it('refuses run_at = infinity from SQL producers, so every action stays readable', async () => {
    await expect(sql.query(`INSERT INTO actions (lock_id, type, payload, run_at) VALUES (5, 'instance.create', '{}', 'infinity')`)).rejects.toThrow(
      /actions_run_at_in_range/,
    );
    await expect(sql.query(`INSERT INTO actions (lock_id, type, payload, run_at) VALUES (5, 'instance.create', '{}', '-infinity')`)).rejects.toThrow(
      /actions_run_at_in_range/,
    );
  });

  it.each([
    ['a lone surrogate in the payload', '{"type":"instance.create","payload":{"a":"\\ud800"}}', /payload\.a contains an unpaired UTF-16 surrogate/],
    ['a lone surrogate in a batch item', '{"actions":[{"type":"instance.create","payload":{"\\udc00":1}}]}', /actions\.0\.payload has a key with an unpaired/],
    [
      'a lone surrogate in the idempotency key',
      '{"type":"instance.create","idempotencyKey":"\\ud800"}',
      /idempotencyKey contains an unpaired UTF-16 surrogate/,
    ],
    ['a payload nested 1 500 levels deep', `{"type":"instance.create","payload":{"a":${'['.repeat(1500)}${']'.repeat(1500)}}}`, /nested deeper than 64 levels/],
    ['a number beyond float range', '{"type":"instance.create","payload":{"n":1e400}}', /payload\.n must be a finite number/],
    ['a "constructor" field', '{"type":"instance.create","constructor":{}}', /property constructor should not exist/],
    ['an impossible calendar date', '{"type":"instance.create","runAt":"2020-02-30T00:00:00Z"}', /runAt must be an ISO 8601 timestamp/],
    ['runAt as epoch milliseconds', '{"type":"instance.create","runAt":12345}', /runAt must be an ISO 8601 timestamp/],
    ['a JSON null body', 'null', /request body must be a JSON object/],
  ])('answers 400 naming the field for %s, writing nothing', async (_name, body, message) => {
    const before = await count();
    const path = body.includes('"actions"') ? '/actions/batch' : '/actions';
    const res = await request(url).post(path).set('content-type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toMatch(message);
    expect(await count()).toBe(before);
  });

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

  it('answers 415 to a body that is not JSON', async () => {
    const res = await request(url).post('/actions').set('content-type', 'text/plain').send('{"type":"instance.create"}');
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/Content-Type must be application\/json/);
  });

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

describe('examples/seed-batch.json', () => {
  it('is the REST body for the sample actions of examples/seed-actions.json', () => {
    const read = (f: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', f), 'utf8'));
    expect(read('seed-batch.json')).toEqual({ actions: read('seed-actions.json').actions });
  });
});
