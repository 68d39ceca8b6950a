import request from 'supertest';
import { backendPid, waitForLockWaiters, withTestApp } from '../support';

/**
 * Maximum group depth (src/database/sql/035-group-depth-limits.up.sql): the
 * N+1th enqueue into a group holding N unfinished actions is refused, with
 * 429 on REST (single and batch, all or nothing) and SQLSTATE 53400 on SQL,
 * also when two producers race at N-1.
 *
 * Seen to fail against a deliberately broken build: the statement trigger's
 * function declared STABLE (its count then uses the insert statement's
 * snapshot, taken before the rival's commit, and the race test lets both
 * inserts through).
 */
describe('maximum group depth', () => {
  const t = withTestApp('group_depth', { env: { WORKER_ENABLED: 'false' } });

  afterEach(async () => {
    await t.pg.query(`DELETE FROM action_group_depth_limits`);
  });

  it('answers 429 naming the limit to the N+1th REST enqueue into a group, and accepts other groups', async () => {
    await request(t.url).put('/group-depth-limits/global').send({ maxDepth: 3 }).expect(200);
    for (let i = 0; i < 3; i++) await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9001' }).expect(201);
    const refused = await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9001' });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/group 9001 would hold 4 unfinished actions, over the max group depth \(global limit: 3\)/);
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9002' }).expect(201);
    // Ungrouped actions have no depth.
    for (let i = 0; i < 4; i++) await request(t.url).post('/actions').send({ type: 'instance.create' }).expect(201);
    // A finished action frees its place.
    await t.pg.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = (SELECT min(id) FROM actions WHERE lock_id = 9001)`);
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9001' }).expect(201);
  });

  it('refuses a whole batch that would pass the limit in one of its groups, writing nothing', async () => {
    await request(t.url).put('/group-depth-limits/global').send({ maxDepth: 2 }).expect(200);
    const before = (await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`)).rows[0].n;
    const batch = {
      actions: [
        { type: 'instance.create', lockId: '9101' },
        { type: 'instance.create', lockId: '9102' },
        { type: 'instance.create', lockId: '9102' },
        { type: 'instance.create', lockId: '9102' },
      ],
    };
    const refused = await request(t.url).post('/actions/batch').send(batch);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/group 9102 would hold 3 unfinished actions/);
    expect((await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`)).rows[0].n).toBe(before);
    await request(t.url)
      .post('/actions/batch')
      .send({ actions: batch.actions.slice(0, 3) })
      .expect(201);
  });

  it("applies a type's own limit over the global one, to enqueues of that type, and names it", async () => {
    await request(t.url).put('/group-depth-limits/global').send({ maxDepth: 100 }).expect(200);
    const set = await request(t.url).put('/group-depth-limits/types/instance.update').send({ maxDepth: 1 }).expect(200);
    expect(set.body).toMatchObject({ type: 'instance.update', maxDepth: 1 });
    await request(t.url).post('/actions').send({ type: 'instance.update', lockId: '9201' }).expect(201);
    const refused = await request(t.url).post('/actions').send({ type: 'instance.update', lockId: '9201' });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toContain(`type 'instance.update' limit: 1`);
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9201' }).expect(201);
    const list = await request(t.url).get('/group-depth-limits').expect(200);
    expect(list.body.items.map((l: { type: string | null; maxDepth: number }) => [l.type, l.maxDepth])).toEqual([
      [null, 100],
      ['instance.update', 1],
    ]);
    await request(t.url).delete('/group-depth-limits/types/instance.update').expect(204);
    await request(t.url).delete('/group-depth-limits/types/instance.update').expect(404);
    await request(t.url).post('/actions').send({ type: 'instance.update', lockId: '9201' }).expect(201);
  });

  it('refuses the N+1th plain SQL insert with SQLSTATE 53400 naming the limit, also for string group keys', async () => {
    await t.pg.query(`INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, 2)`);
    await t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9301, 'instance.create'), (9301, 'instance.create')`);
    await expect(t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9301, 'instance.create')`)).rejects.toMatchObject({
      code: '53400',
      constraint: 'action_group_depth_limit',
      message: expect.stringMatching(/group 9301 would hold 3 unfinished actions, over the max group depth \(global limit: 2\)/),
    });
    await t.pg.query(`INSERT INTO actions (group_key, type) VALUES ('tenant:7', 'instance.create'), ('tenant:7', 'instance.create')`);
    await expect(t.pg.query(`INSERT INTO actions (group_key, type) VALUES ('tenant:7', 'instance.create')`)).rejects.toMatchObject({
      code: '53400',
      message: expect.stringContaining(`group 'tenant:7' would hold 3`),
    });
    // A repeated idempotency key is not an enqueue: the existing action stands, no refusal.
    await t.pg.query(`DELETE FROM actions WHERE lock_id = 9301 AND id = (SELECT max(id) FROM actions WHERE lock_id = 9301)`);
    await t.pg.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES (9301, 'instance.create', 'depth-key')`);
    const again = await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '9301', idempotencyKey: 'depth-key' });
    expect(again.status).toBe(200);
  });

  it("checks each row of one SQL statement against its own type's limit, counting the rows ahead of it in the statement and the older ones", async () => {
    await t.pg.query(`INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, 4), ('instance.update', 2)`);
    await t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9501, 'instance.create')`);
    // An update meets depth 1 (< 2), the creates 2 and 3 (< 4): all in.
    await t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9501, 'instance.update'), (9501, 'instance.create'), (9501, 'instance.create')`);
    // Depth 4 now: a create meets the global limit; an update its own, lower one; nothing of the statement is written.
    await expect(t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9502, 'instance.create'), (9501, 'instance.update')`)).rejects.toMatchObject({
      code: '53400',
      message: expect.stringContaining(`group 9501 would hold at least 4 unfinished actions, over the max group depth (type 'instance.update' limit: 2)`),
    });
    await expect(t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9501, 'instance.create')`)).rejects.toMatchObject({
      message: expect.stringContaining('(global limit: 4)'),
    });
    expect((await t.pg.query(`SELECT 1 FROM actions WHERE lock_id = 9502`)).rowCount).toBe(0);
    // In one statement into a fresh group: the third update meets depth 2, the first row that fails names it.
    await expect(t.pg.query(`INSERT INTO actions (lock_id, type) SELECT 9503, 'instance.update' FROM generate_series(1, 3)`)).rejects.toMatchObject({
      code: '53400',
      message: expect.stringContaining('group 9503 would hold 3 unfinished actions'),
    });
    // An ON CONFLICT DO NOTHING that inserts nothing is never refused, even at the limit.
    await t.pg.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES (9504, 'instance.update', 'k1'), (9504, 'instance.update', 'k2')`);
    await t.pg.query(
      `INSERT INTO actions (lock_id, type, idempotency_key) VALUES (9504, 'instance.update', 'k1'), (9504, 'instance.update', 'k2') ON CONFLICT DO NOTHING`,
    );
  });

  it('lets exactly one of two producers racing at N-1 through', async () => {
    await t.pg.query(`INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, 2)`);
    await t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9401, 'instance.create')`);
    const [a, b] = [await t.db.connect(), await t.db.connect()];
    const bPid = await backendPid(b);
    // A holds the group lock with its insert uncommitted; B queues behind it.
    await a.query('BEGIN');
    await a.query(`INSERT INTO actions (lock_id, type) VALUES (9401, 'instance.create')`);
    const bInsert = b.query(`INSERT INTO actions (lock_id, type) VALUES (9401, 'instance.create')`).then(
      () => 'inserted',
      (error: { code?: string }) => error.code,
    );
    await waitForLockWaiters(t.db.name, 1, [bPid]);
    await a.query('COMMIT');
    expect(await bInsert).toBe('53400');
    const { rows } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id = 9401`);
    expect(rows[0].n).toBe(2);
  });

  it('refuses a maxDepth that is not a positive integer, naming the field', async () => {
    const bad = await request(t.url).put('/group-depth-limits/global').send({ maxDepth: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.message)).toContain('maxDepth');
    await request(t.url).put('/group-depth-limits/global').send({ maxDepth: '5' }).expect(400);
    // One message per field, whatever is wrong with it.
    for (const body of [{}, { maxDepth: 'x' }, { maxDepth: 0 }, { maxDepth: 1.5 }, { maxDepth: '5' }]) {
      const res = await request(t.url).put('/group-depth-limits/global').send(body).expect(400);
      expect(res.body.message).toHaveLength(1);
      expect(res.body.message[0]).toMatch(/^maxDepth (is required: an|must be an) integer from 1 to 1000000000$/);
    }
  });

  it('says what a refused batch would have made the group hold, not what it already held', async () => {
    // An empty group, limit 3, a batch of 4: the group held nothing before, it would have held 4.
    await request(t.url).put('/group-depth-limits/global').send({ maxDepth: 3 }).expect(200);
    const batch = { actions: Array.from({ length: 4 }, () => ({ type: 'instance.create', lockId: '9651' })) };
    const refused = await request(t.url).post('/actions/batch').send(batch).expect(429);
    expect(refused.body.message).toBe('actions: group 9651 would hold 4 unfinished actions, over the max group depth (global limit: 3); nothing was enqueued');
    expect((await t.pg.query(`SELECT 1 FROM actions WHERE lock_id = 9651`)).rowCount).toBe(0);
  });

  it('refuses type names no action can have, as /pauses and /rate-limits do, storing nothing', async () => {
    for (const type of [' ', "x';drop", '\u{1F600}', 'a'.repeat(201)]) {
      const res = await request(t.url)
        .put(`/group-depth-limits/types/${encodeURIComponent(type)}`)
        .send({ maxDepth: 5 })
        .expect(400);
      expect(res.body.message).toEqual(['type must be 1..200 characters of letters, digits, ".", "_", "-", ":"']);
    }
    expect((await t.pg.query(`SELECT 1 FROM action_group_depth_limits`)).rowCount).toBe(0);
    await request(t.url).put('/group-depth-limits/types/report.build:v2').send({ maxDepth: 5 }).expect(200);
  });
});
