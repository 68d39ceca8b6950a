import { Client } from 'pg';
import request from 'supertest';
import { withTestApp } from '../support';

/** MAX_RESPONSE_BYTES of the app under test: its smallest allowed value. */
const MAX_RESPONSE_BYTES = 65_536;

/**
 * Inserts a pending action far in the future (never claimed) in group `lockId`
 * with `attempts` ended attempts, each with an error of `errorChars` and a stack
 * of `stackChars` characters: the trace of an action retried many times (every
 * manual retry grants a fresh budget, so a trace has no length limit).
 */
async function actionWithLongTrace(pg: Client, lockId: number, attempts: number, errorChars: number, stackChars: number): Promise<string> {
  const { rows } = await pg.query<{ id: string }>(
    `INSERT INTO actions (type, lock_id, payload, run_at) VALUES ('instance.create', $1, '{}', now() + interval '10 years') RETURNING id::text AS id`,
    [lockId],
  );
  const id = rows[0].id;
  await pg.query(
    `INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, error_stack)
     SELECT $1::bigint, $2::bigint, g, 'worker-1', now(), now(), 'error', repeat('e', $3::int), repeat('s', $4::int) FROM generate_series(1, $5::int) AS g`,
    [id, lockId, errorChars, stackChars, attempts],
  );
  return id;
}

// "Reads are bounded by MAX_RESPONSE_BYTES" (docs/operations.md, "Security"): an action's
// trace is part of what GET /actions/:id sends. Seen failing before the fix: a
// 20-attempt trace of 240 KB was sent whole (200) under a 64 KiB limit.
describe('GET /actions/:id bounds the trace too', () => {
  const t = withTestApp('bounded_trace', { env: { MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES), WORKER_ENABLED: 'false' } });

  it('answers 413 naming the trace when payload, result, errors and trace together are over MAX_RESPONSE_BYTES', async () => {
    const id = await actionWithLongTrace(t.pg, 9101, 20, 4_000, 8_000);
    const res = await request(t.url).get(`/actions/${id}`);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(
      new RegExp(`action ${id} holds \\d+ bytes of payload, result, error and trace, over the ${MAX_RESPONSE_BYTES}-byte limit .*MAX_RESPONSE_BYTES`),
    );
  });

  it('still sends an action whose trace fits, every attempt of it', async () => {
    const id = await actionWithLongTrace(t.pg, 9102, 3, 100, 200);
    const res = await request(t.url).get(`/actions/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.trace.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
  });
});

// The timeline sends every attempt's error of up to 200 actions: unbounded before
// the fix (seen failing: three 40 KB traces sent in one 64 KiB-limited page).
describe('GET /groups/:lockId/timeline bounds its page by MAX_RESPONSE_BYTES', () => {
  const t = withTestApp('bounded_timeline', { env: { MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES), WORKER_ENABLED: 'false' } });

  it('sends the newest actions whose traces fit, with nextBefore to the rest, and one that never fits without its trace', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await actionWithLongTrace(t.pg, 9201, 10, 4_000, 8_000)); // 40 KB of errors each
    const first = await request(t.url).get('/groups/9201/timeline');
    expect(first.status).toBe(200);
    expect(first.body.actions.map((a: { id: string }) => a.id)).toEqual([ids[2]]);
    expect(first.body.actions[0].trace).toHaveLength(10);
    expect(first.body.nextBefore).toBe(ids[2]);
    const second = await request(t.url).get(`/groups/9201/timeline?before=${first.body.nextBefore}`);
    expect(second.body.actions.map((a: { id: string }) => a.id)).toEqual([ids[1]]);

    // Seen failing before fitToBudget: 413 for the whole timeline, so the group's history could not be read at all.
    const older = await actionWithLongTrace(t.pg, 9202, 1, 100, 0);
    const huge = await actionWithLongTrace(t.pg, 9202, 20, 4_000, 0); // 80 KB of errors alone
    const res = await request(t.url).get('/groups/9202/timeline');
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(res.body.actions.map((a: { id: string }) => a.id)).toEqual([older, huge]);
    expect(res.body.actions[1]).toMatchObject({ id: huge, trace: [], lastError: null, contentOmitted: true });
    expect(res.body.actions[1].contentBytes.trace).toBeGreaterThan(80_000);
    expect(res.body.actions[0]).toMatchObject({ id: older, contentOmitted: false });
    expect(res.body.actions[0].trace).toHaveLength(1);
  });

  it('lists blocked and deepest groups whose heads carry errors over the limit, without those errors', async () => {
    // An error written by an operator's SQL can be any length; the service's own are bounded, but 200 may not fit.
    const ids = [];
    for (const lockId of [9401, 9402]) {
      const { rows } = await t.pg.query<{ id: string }>(
        `INSERT INTO actions (type, lock_id, payload, run_at) VALUES ('instance.create', $1, '{}', now() + interval '10 years') RETURNING id::text AS id`,
        [lockId],
      );
      await t.pg.query(`UPDATE actions SET status = 'failed', finished_at = now(), attempts = 1, last_error = repeat('e', $2::int) WHERE id = $1`, [
        rows[0].id,
        lockId === 9401 ? 100 : 70_000,
      ]);
      ids.push(rows[0].id);
    }
    const blocked = await request(t.url).get('/groups/blocked');
    expect(blocked.status).toBe(200);
    const heads = Object.fromEntries(blocked.body.items.map((g: { lockId: string; head: unknown }) => [g.lockId, g.head]));
    expect(heads['9401']).toMatchObject({ id: ids[0], lastError: 'e'.repeat(100), contentOmitted: false });
    expect(heads['9402']).toMatchObject({ id: ids[1], lastError: null, contentOmitted: true, contentBytes: { lastError: 70_000 } });
    const deepest = await request(t.url).get('/groups/deepest');
    expect(deepest.status).toBe(200);
    expect(deepest.text.length).toBeLessThan(MAX_RESPONSE_BYTES);
    const deep = Object.fromEntries(deepest.body.items.map((g: { lockId: string; head: unknown }) => [g.lockId, g.head]));
    expect(deep['9402']).toMatchObject({ id: ids[1], lastError: null, contentOmitted: true });
  });
});

// The timeline sends no payload or result, yet it fetched both for up to 200
// actions: 30 actions of 10 MB (SQL producers with aq.max_payload_bytes raised)
// grew the service by 400 MB for an 8 KB answer, found by trying it; 200 of them
// would end the process, worker included. Seen failing before the fix: the jest
// process (the app runs in it) grew by about 200 MB on this test.
describe('GET /groups/:lockId/timeline fetches no payload or result', () => {
  const t = withTestApp('timeline_columns', { env: { WORKER_ENABLED: 'false' } });

  it('answers a group of 20 actions of 10 MB payloads without holding them in memory', async () => {
    await t.pg.query(`SET aq.max_payload_bytes = '0'`);
    await t.pg.query(
      `INSERT INTO actions (type, lock_id, payload, run_at)
       SELECT 'instance.create', 9301, jsonb_build_object('blob', repeat(md5(g::text), 312500)), now() + interval '10 years' FROM generate_series(1, 20) AS g`,
    );
    const before = process.memoryUsage().rss;
    const res = await request(t.url).get('/groups/9301/timeline');
    const grew = process.memoryUsage().rss - before;
    expect(res.status).toBe(200);
    expect(res.body.actions).toHaveLength(20);
    expect(grew).toBeLessThan(80 * 2 ** 20);
  });
});
