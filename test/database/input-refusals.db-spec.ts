import { Client } from 'pg';
import request from 'supertest';
import { withTestApp } from '../support';

/** Bad input is refused whole: by REST with a 4xx naming the field, by SQL with a named constraint; nothing is written. */
describe('bad input is refused whole', () => {
  const t = withTestApp('refusals', { env: { WORKER_CONCURRENCY: '4', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });
  let url: string;
  let sql: Client;
  beforeAll(() => ({ url, pg: sql } = t));

  const count = async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;

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

  it('answers 415 to a body that is not JSON', async () => {
    const res = await request(url).post('/actions').set('content-type', 'text/plain').send('{"type":"instance.create"}');
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/Content-Type must be application\/json/);
  });
});
