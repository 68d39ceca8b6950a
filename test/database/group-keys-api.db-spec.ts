import request from 'supertest';
import { checkTrace, formatTraceReport, waitFor, withTestApp } from '../support';

/** The largest lock id reserved for interned string keys (017-group-keys.up.sql). */
const RESERVED_MAX = (-(2n ** 63n) + 2n ** 48n - 1n).toString();

/**
 * String group keys through the REST API: `groupKey`
 * beside `lockId`, the key visible on every action and group, and a
 * string-keyed group ordered exactly as an integer one.
 */
describe('string group keys through the REST API', () => {
  const t = withTestApp('group_keys_api', { env: { WORKER_CONCURRENCY: '8', RETRY_BACKOFF_BASE_MS: '10', RETRY_BACKOFF_CAP_MS: '20' } });

  const enqueue = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/actions')
      .send({ type: 'instance.update', ...body });
  const waitDone = (ids: string[]) =>
    waitFor(async () => {
      const { rows } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1::bigint[]) AND status IN ('done', 'failed')`, [
        ids,
      ]);
      return rows[0].n === ids.length;
    }, 30_000);

  it('runs a string-keyed group one at a time in enqueue order, REST and SQL producers mixed', async () => {
    const key = 'tenant:42';
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      if (i % 2 === 0) {
        const res = await enqueue({ groupKey: key, payload: { durationMs: 30, step: i } }).expect(201);
        expect(res.body.groupKey).toBe(key);
        ids.push(res.body.id);
      } else {
        const { rows } = await t.pg.query<{ id: string }>(
          `INSERT INTO actions (group_key, type, payload) VALUES ($1, 'instance.update', $2) RETURNING id::text`,
          [key, { durationMs: 30, step: i }],
        );
        ids.push(rows[0].id);
      }
    }
    // A batch keeps its input order within the key's group, beside an integer group.
    const batch = await request(t.url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.update', groupKey: key, payload: { durationMs: 10 } },
          { type: 'instance.update', lockId: 42, payload: { durationMs: 10 } },
          { type: 'instance.update', groupKey: key, payload: { durationMs: 10 } },
        ],
      })
      .expect(201);
    expect(batch.body.actions.map((a: { groupKey: string | null }) => a.groupKey)).toEqual([key, null, key]);
    // The integer group 42 and the key "tenant:42" are different groups.
    expect(batch.body.actions[1].lockId).toBe('42');
    expect(batch.body.actions[0].lockId).not.toBe('42');
    ids.push(batch.body.actions[0].id, batch.body.actions[2].id);
    await waitDone([...ids, batch.body.actions[1].id]);

    const lockId = batch.body.actions[0].lockId as string;
    const report = await checkTrace(t.pg, { lockIds: [lockId], expectDone: ids });
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    const { rows } = await t.pg.query<{ action_id: string }>(
      `SELECT action_id::text FROM action_attempts WHERE lock_id = $1 AND outcome = 'done' ORDER BY started_at`,
      [lockId],
    );
    expect(rows.map((r) => r.action_id)).toEqual(ids);
  });

  it('gives "Aa" and "BB" distinct groups: a failed head under one key never blocks the other', async () => {
    const aa = await enqueue({ groupKey: 'Aa', payload: { durationMs: 0, failAttempts: 9 }, maxAttempts: 1 }).expect(201);
    const bb = await enqueue({ groupKey: 'BB', payload: { durationMs: 0 } }).expect(201);
    expect(aa.body.lockId).not.toBe(bb.body.lockId);
    await waitDone([aa.body.id, bb.body.id]);
    expect((await request(t.url).get(`/actions/${aa.body.id}`).expect(200)).body.status).toBe('failed');
    expect((await request(t.url).get(`/actions/${bb.body.id}`).expect(200)).body.status).toBe('done');
    const blocked = await request(t.url).get('/groups/blocked').expect(200);
    expect(blocked.body.items.filter((g: { groupKey: string | null }) => g.groupKey === 'Aa')).toHaveLength(1);
    expect(blocked.body.items.filter((g: { groupKey: string | null }) => g.groupKey === 'BB')).toHaveLength(0);
  });

  it('shows the key on groups and filters actions by it', async () => {
    const key = 'orders/eu west/ünïcode 🚀';
    const first = await enqueue({ groupKey: key, type: 'test.parked' }).expect((r) => expect(r.status).toBe(400));
    expect(first.body.message.join(' ')).toContain('type "test.parked" has no registered handler');
    const a = await enqueue({ groupKey: key, payload: { durationMs: 0 } }).expect(201);
    const b = await enqueue({ groupKey: key, payload: { durationMs: 0 } }).expect(201);
    expect(a.body.lockId).toBe(b.body.lockId);

    const byKey = await request(t.url)
      .get(`/groups/by-key/${encodeURIComponent(key)}`)
      .expect(200);
    expect(byKey.body).toMatchObject({ lockId: a.body.lockId, groupKey: key });
    const byLockId = await request(t.url).get(`/groups/${a.body.lockId}`).expect(200);
    expect(byLockId.body.groupKey).toBe(key);
    expect((await request(t.url).get('/groups/7').expect(200)).body.groupKey).toBeNull();
    const unknown = await request(t.url).get(`/groups/by-key/never-used`).expect(404);
    expect(unknown.body.message).toContain('never-used');

    const page = await request(t.url).get('/actions').query({ groupKey: key }).expect(200);
    expect(page.body.items.map((x: { id: string }) => x.id)).toEqual([a.body.id, b.body.id]);
    expect((await request(t.url).get('/actions').query({ groupKey: 'never-used' }).expect(200)).body.items).toEqual([]);
    const both = await request(t.url).get('/actions').query({ groupKey: key, lockId: '1' }).expect(400);
    expect(both.body.message.join(' ')).toContain('groupKey and lockId');
  });

  it('gives concurrent first enqueues of one new key, single and batched, one group', async () => {
    const key = `burst:${Date.now()}`;
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? request(t.url)
              .post('/actions/batch')
              .send({
                actions: [
                  { type: 'instance.update', groupKey: key, payload: { durationMs: 0 } },
                  { type: 'instance.update', groupKey: `${key}:other` },
                ],
              })
          : enqueue({ groupKey: key, payload: { durationMs: 0 } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201));
    const lockIds = responses.map((r) => (r.body.actions ? r.body.actions[0] : r.body).lockId as string);
    expect(new Set(lockIds).size).toBe(1);
    const { rows } = await t.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM action_group_keys WHERE group_key = $1', [key]);
    expect(rows[0].n).toBe(1);
  });

  it('answers a repeated idempotency key with the original, and 409 for another key', async () => {
    const first = await enqueue({ groupKey: 'idem', idempotencyKey: 'gk-idem-1', payload: { durationMs: 0 } }).expect(201);
    const again = await enqueue({ groupKey: 'idem', idempotencyKey: 'gk-idem-1', payload: { durationMs: 0 } }).expect(200);
    expect(again.body.id).toBe(first.body.id);
    await enqueue({ groupKey: 'other', idempotencyKey: 'gk-idem-1' }).expect(409);
    await enqueue({ lockId: first.body.lockId, idempotencyKey: 'gk-idem-1' }).expect(400);
  });

  it('retries a failed skip action at the tail of its string-keyed group', async () => {
    const failed = await enqueue({ groupKey: 'skip-me', onFailure: 'skip', maxAttempts: 1, payload: { durationMs: 0, failAttempts: 1 } }).expect(201);
    await waitDone([failed.body.id]);
    const copy = await request(t.url).post(`/actions/${failed.body.id}/retry`).expect(200);
    expect(copy.body).toMatchObject({ groupKey: 'skip-me', lockId: failed.body.lockId, retryOf: failed.body.id });
    await waitDone([copy.body.id]);
    // The copy ran (its payload fails its first attempt too), in the same group.
    const ran = (await request(t.url).get(`/actions/${copy.body.id}`).expect(200)).body;
    expect(ran).toMatchObject({ status: 'failed', attempts: 1, groupKey: 'skip-me', lockId: failed.body.lockId });
  });

  it('refuses a bad groupKey, or one beside a lockId, with 400 naming the field, and writes nothing', async () => {
    const before = (await t.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;
    const cases: [Record<string, unknown>, string][] = [
      [{ groupKey: '' }, 'groupKey must not be empty'],
      // The JSON body guard refuses a NUL in any string first, naming the field.
      [{ groupKey: 'a\u0000b' }, 'groupKey contains the NUL character'],
      [{ groupKey: 'é'.repeat(128) }, 'groupKey is 256 bytes of UTF-8; the limit is 255'],
      [{ groupKey: 'a\ud800' }, 'groupKey contains an unpaired UTF-16 surrogate'],
      [{ groupKey: 42 }, 'groupKey must be a string'],
      [{ groupKey: 'tenant:1', lockId: '1' }, 'groupKey and lockId: give one or the other, not both'],
      [{ lockId: RESERVED_MAX }, 'lockId is reserved for string group keys'],
    ];
    for (const [body, message] of cases) {
      const res = await enqueue(body);
      expect({ body, status: res.status, message: res.body.message?.join(' ') }).toEqual({ body, status: 400, message: expect.stringContaining(message) });
    }
    const batch = await request(t.url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.update', groupKey: 'ok' },
          { type: 'instance.update', groupKey: '' },
        ],
      })
      .expect(400);
    expect(batch.body.message.join(' ')).toContain('actions.1.groupKey must not be empty');
    // 255 bytes fit; one above the reserved range is an ordinary integer group.
    await enqueue({ groupKey: 'é'.repeat(127) + 'x', payload: { durationMs: 0 } }).expect(201);
    await enqueue({ lockId: (BigInt(RESERVED_MAX) + 1n).toString(), payload: { durationMs: 0 } }).expect(201);
    const after = (await t.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;
    expect(after).toBe(before + 2);
  });
});
