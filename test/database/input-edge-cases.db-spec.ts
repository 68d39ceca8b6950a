import { BadRequestException, INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { ActionsService } from '../../src/actions/actions.service';
import { withTestApp } from '../support';

/**
 * Input that looks alike but is not: a `runAt` without a UTC offset (whose
 * instant would depend on the server's time zone), and an escaped backslash
 * followed by `u0000` (six ordinary characters) next to a real NUL character.
 * Through the REST API, a batch item, and in-process `ActionsService` calls.
 */
describe('input edge cases: runAt offsets and NUL look-alikes', () => {
  let app: INestApplication;
  let url: string;
  let sql: Client;

  const count = async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;

  /** Posts raw JSON text to `path`; expects `status`, and a message matching `message` when given. */
  const postRaw = async (path: string, body: string, status: number, message?: RegExp) => {
    const res = await request(url).post(path).set('content-type', 'application/json').send(body);
    expect({ status: res.status, body: res.body }).toEqual(expect.objectContaining({ status }));
    if (message) expect(JSON.stringify(res.body.message)).toMatch(message);
    return res;
  };

  /** The BadRequestException message of an in-process call, or a failure when it resolves. */
  const rejection = async (call: Promise<unknown>): Promise<string> => {
    const error = await call.then(
      () => new Error('expected a BadRequestException, the call succeeded'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BadRequestException);
    return JSON.stringify((error as BadRequestException).getResponse());
  };

  const t = withTestApp('inputedge', { env: { WORKER_ENABLED: 'false' } });
  beforeAll(() => ({ app, url, pg: sql } = t));

  describe('runAt must carry Z or a UTC offset', () => {
    it.each([
      ['a local date and time', '2030-01-01T09:00:00'],
      ['a local date and time with a fraction', '2030-01-01T09:00:00.250'],
      ['a local date and time without seconds', '2030-01-01T09:00'],
      ['a date alone', '2030-01-01'],
    ])('answers 400 naming runAt to %s, for POST /actions and for a batch item, writing nothing', async (_name, runAt) => {
      const before = await count();
      await postRaw('/actions', JSON.stringify({ type: 'instance.create', runAt }), 400, /"runAt must [^"]*(offset|Z)/);
      const items = [0, 1, 2, 3, 4].map((i) => ({ type: 'instance.create', lockId: String(40 + i), runAt: i === 3 ? runAt : '2030-01-01T09:00:00Z' }));
      await postRaw('/actions/batch', JSON.stringify({ actions: items }), 400, /"actions\.3\.runAt must [^"]*(offset|Z)/);
      expect(await count()).toBe(before);
    });

    it('accepts Z and numeric offsets and stores the instant they name', async () => {
      const cases: [string, string][] = [
        ['2030-01-01T09:00:00Z', '2030-01-01T09:00:00.000Z'],
        ['2030-01-01T09:00:00+09:00', '2030-01-01T00:00:00.000Z'],
        ['2030-01-01T09:00:00.5-05:30', '2030-01-01T14:30:00.500Z'],
        ['2030-01-01T09:00+0100', '2030-01-01T08:00:00.000Z'],
      ];
      for (const [runAt, stored] of cases) {
        const res = await postRaw('/actions', JSON.stringify({ type: 'instance.create', runAt }), 201);
        expect({ runAt, stored: res.body.runAt }).toEqual({ runAt, stored });
        const { rows } = await sql.query<{ run_at: string }>(
          `SELECT to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS run_at FROM actions WHERE id = $1`,
          [res.body.id],
        );
        expect(rows[0].run_at).toBe(stored);
      }
    });

    it('refuses an offset-less runAt string from in-process enqueue and enqueueBatch, and accepts a Date', async () => {
      const actions = app.get(ActionsService);
      const before = await count();
      expect(await rejection(actions.enqueue({ type: 'instance.create', runAt: '2030-01-01T09:00:00' }))).toMatch(/"runAt must [^"]*(offset|Z)/);
      expect(await rejection(actions.enqueue({ type: 'instance.create', runAt: '2030-01-01' }))).toMatch(/"runAt must /);
      expect(
        await rejection(
          actions.enqueueBatch([
            { type: 'instance.create', runAt: '2030-01-01T09:00:00Z' },
            { type: 'instance.create', runAt: '2030-01-01T09:00:00' },
          ]),
        ),
      ).toMatch(/"actions\.1\.runAt must /);
      expect(await count()).toBe(before);
      const { action } = await actions.enqueue({ type: 'instance.create', runAt: new Date(Date.UTC(2030, 0, 1, 9)) });
      expect(action.runAt).toBe('2030-01-01T09:00:00.000Z');
    });

    it('describes the required offset in the OpenAPI document', async () => {
      const doc = (await request(url).get('/docs-json').expect(200)).body;
      const runAt = doc.components.schemas.CreateActionDto.properties.runAt;
      expect(runAt.description).toMatch(/offset/);
      expect(new RegExp(runAt.pattern).test('2030-01-01T09:00:00')).toBe(false);
      expect(new RegExp(runAt.pattern).test('2030-01-01T09:00:00+09:00')).toBe(true);
    });
  });

  describe('only a real NUL character is refused', () => {
    it('accepts an escaped backslash followed by u0000 in a payload value and key, and stores those six characters', async () => {
      // The JSON text holds `\\u0000`: the string is backslash, u, 0, 0, 0, 0 (no NUL).
      const res = await postRaw('/actions', '{"type":"instance.create","payload":{"path":"C:\\\\u0000dir","\\\\u0000key":1}}', 201);
      expect(res.body.payload).toEqual({ path: 'C:\\u0000dir', '\\u0000key': 1 });
      const { rows } = await sql.query<{ path: string; chars: number }>(
        `SELECT payload->>'path' AS path, char_length(payload->>'path')::int AS chars FROM actions WHERE id = $1`,
        [res.body.id],
      );
      expect(rows[0]).toEqual({ path: 'C:\\u0000dir', chars: 'C:'.length + 6 + 'dir'.length });
      const batch = await postRaw('/actions/batch', '{"actions":[{"type":"instance.create","payload":{"p":"\\\\u0000"}}]}', 201);
      expect(batch.body.actions[0].payload).toEqual({ p: '\\u0000' });
      const key = await postRaw('/actions', '{"type":"instance.create","idempotencyKey":"k\\\\u0000"}', 201);
      expect(key.body.idempotencyKey).toBe('k\\u0000');
    });

    it('accepts the same six characters from in-process enqueue', async () => {
      const { action } = await app
        .get(ActionsService)
        .enqueue({ type: 'instance.create', payload: { path: 'C:\\u0000dir', nested: { '\\u0000': ['\\\\u0000'] } } });
      expect(action.payload).toEqual({ path: 'C:\\u0000dir', nested: { '\\u0000': ['\\\\u0000'] } });
    });

    it.each([
      ['a payload value', '/actions', '{"type":"instance.create","payload":{"x":"a\\u0000b"}}', /payload\.x contains the NUL character/],
      ['a payload key', '/actions', '{"type":"instance.create","payload":{"a\\u0000":1}}', /payload has a key with the NUL character/],
      ['a nested payload value', '/actions', '{"type":"instance.create","payload":{"a":[{"b":"\\u0000"}]}}', /payload\.a\.0\.b contains the NUL character/],
      [
        'a batch item payload',
        '/actions/batch',
        '{"actions":[{"type":"instance.create","payload":{"x":"\\u0000"}}]}',
        /actions\.0\.payload\.x contains the NUL/,
      ],
      ['the idempotency key', '/actions', '{"type":"instance.create","idempotencyKey":"k\\u0000"}', /idempotencyKey contains the NUL character/],
      ['the type', '/actions', '{"type":"instance.create\\u0000"}', /type contains the NUL character/],
    ])('still answers 400 naming the field to a real NUL character in %s, writing nothing', async (_name, path, body, message) => {
      const before = await count();
      await postRaw(path, body, 400, message);
      expect(await count()).toBe(before);
    });

    it('still refuses a real NUL character from in-process enqueue, naming the field', async () => {
      const actions = app.get(ActionsService);
      const before = await count();
      expect(await rejection(actions.enqueue({ type: 'instance.create', payload: { x: 'a\u0000b' } }))).toMatch(/payload: x contains the NUL character/);
      expect(await rejection(actions.enqueue({ type: 'instance.create', payload: { ['k\u0000']: 1 } }))).toMatch(/payload: has a key with the NUL/);
      expect(await rejection(actions.enqueueBatch([{ type: 'instance.create' }, { type: 'instance.create', idempotencyKey: 'k\u0000' }]))).toMatch(
        /actions\.1\.idempotencyKey must be a string without the NUL character/,
      );
      expect(await count()).toBe(before);
    });
  });

  describe('payloads and results nested deeper than JSON.stringify can recurse (stored by SQL)', () => {
    const depth = 8000; // PostgreSQL accepts it; JSON.stringify overflows the stack from about 4 000
    const deepArray = '['.repeat(depth) + ']'.repeat(depth);

    it('answers GET /actions/:id, the list, the group and a skip retry with 200 and the values intact', async () => {
      const { rows } = await sql.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, payload) VALUES (77001, 'instance.create', ('{"d":' || repeat('[', $1) || repeat(']', $1) || '}')::jsonb),
                (NULL, 'instance.create', ('{"d":' || repeat('[', $1) || repeat(']', $1) || '}')::jsonb),
                (77002, 'instance.create', ('{"d":' || repeat('[', $1) || repeat(']', $1) || '}')::jsonb)
         RETURNING id::text`,
        [depth],
      );
      const [head, done, skipped] = rows.map((r) => r.id);
      await sql.query(`UPDATE actions SET status = 'done', finished_at = now(), result = payload WHERE id = $1`, [done]);
      await sql.query(`UPDATE actions SET status = 'failed', on_failure = 'skip', finished_at = now(), attempts = 1 WHERE id = $1`, [skipped]);
      // Compared as text: the parsed value is too deep for a recursive toEqual.
      const payloadText = `"payload":{"d":${deepArray}}`;

      const one = await request(url).get(`/actions/${head}`).expect(200);
      expect(one.headers['content-type']).toMatch(/^application\/json/);
      expect(one.text).toContain(payloadText);
      expect(one.body.id).toBe(head);
      const finished = await request(url).get(`/actions/${done}`).expect(200);
      expect(finished.text).toContain(payloadText);
      expect(finished.text).toContain(`"result":{"d":${deepArray}}`);

      const page = await request(url)
        .get(`/actions?after=${BigInt(head) - 1n}&limit=3`)
        .expect(200);
      expect(page.body.items.map((a: { id: string }) => a.id)).toEqual([head, done, skipped]);
      expect(page.text.split(payloadText).length - 1).toBe(3);

      const group = await request(url).get('/groups/77001').expect(200);
      expect(group.body.head.id).toBe(head);
      expect(group.text).toContain(payloadText);

      const copy = await request(url).post(`/actions/${skipped}/retry`).expect(200);
      expect(copy.body.retryOf).toBe(skipped);
      expect(copy.text).toContain(payloadText);
      const same = await sql.query<{ same: boolean }>(
        `SELECT (SELECT payload FROM actions WHERE id = $1) = (SELECT payload FROM actions WHERE id = $2) AS same`,
        [skipped, copy.body.id],
      );
      expect(same.rows[0].same).toBe(true);
    });

    it('hands the payload to in-process reads', async () => {
      const { rows } = await sql.query<{ id: string }>(
        `INSERT INTO actions (type, payload) VALUES ('instance.create', ('{"d":' || repeat('[', $1) || repeat(']', $1) || '}')::jsonb) RETURNING id::text`,
        [depth],
      );
      const action = await app.get(ActionsService).get(rows[0].id);
      let levels = 0;
      for (let v: unknown = action.payload.d; Array.isArray(v) && v.length > 0; v = v[0]) levels++;
      expect(levels).toBe(depth - 1);
    });
  });
});
