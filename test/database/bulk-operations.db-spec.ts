import request from 'supertest';
import { waitFor, waitForLockWaiters, withTestApp } from '../support';

/**
 * Bulk retry and cancel (src/bulk-operations/, audit table 037): a dry run
 * counts exactly what the operation then changes, chunks keep each group's
 * order, and every operation is recorded with its actor.
 */
describe('bulk operations', () => {
  const t = withTestApp('bulk_ops', { env: { WORKER_CONCURRENCY: '16', WORKER_POLL_INTERVAL_MS: '200' } });
  const GROUPS = 100;
  const PER_GROUP = 100;

  it('retries 10 000 failed actions: the dry-run count equals the applied count, and each group runs its copies in id order, one at a time', async () => {
    // Enqueued not yet due, then failed under `skip` (a downstream outage), so no worker touches them first.
    await t.pg.query(
      `INSERT INTO actions (lock_id, type, payload, on_failure, run_at)
       SELECT 50000 + (n % $1), 'instance.create', '{"durationMs": 0}', 'skip', now() + interval '1 hour'
       FROM generate_series(0, $2 - 1) AS n`,
      [GROUPS, GROUPS * PER_GROUP],
    );
    await t.pg.query(`UPDATE actions SET status = 'failed', finished_at = now(), last_error = 'downstream 503' WHERE lock_id >= 50000`);
    const filter = { type: 'instance.create', status: 'failed', errorContains: 'downstream 503' };
    const dry = await request(t.url).post('/bulk-operations').send({ operation: 'retry', filter, dryRun: true }).expect(201);
    expect(dry.body).toMatchObject({ operation: 'retry', dryRun: true, matched: GROUPS * PER_GROUP, applied: 0, actor: 'anonymous' });
    expect(await t.pg.query(`SELECT 1 FROM actions WHERE retry_of IS NOT NULL`)).toMatchObject({ rowCount: 0 });

    const applied = await request(t.url).post('/bulk-operations').send({ operation: 'retry', filter }).expect(201);
    expect(applied.body).toMatchObject({ dryRun: false, matched: dry.body.matched, applied: dry.body.matched, error: null });
    expect(applied.body.finishedAt).not.toBeNull();

    // Every copy ran once, and within each group in id order without overlap.
    await waitFor(async () => (await t.pg.query(`SELECT 1 FROM actions WHERE retry_of IS NOT NULL AND status <> 'done'`)).rowCount === 0, 240_000, 500);
    const { rows: copies } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE retry_of IS NOT NULL`);
    expect(copies[0].n).toBe(GROUPS * PER_GROUP);
    const { rows: reordered } = await t.pg.query<{ n: number }>(`
      SELECT count(*)::int AS n FROM (
        SELECT retry_of, lag(retry_of) OVER (PARTITION BY lock_id ORDER BY id) AS previous FROM actions WHERE retry_of IS NOT NULL
      ) AS c WHERE retry_of < previous`);
    expect(reordered[0].n).toBe(0);
    const { rows: overlaps } = await t.pg.query<{ n: number }>(`
      SELECT count(*)::int AS n FROM (
        SELECT t.started_at, lag(t.finished_at) OVER (PARTITION BY a.lock_id ORDER BY a.id) AS previous_end
        FROM action_attempts AS t JOIN actions AS a ON a.id = t.action_id WHERE a.retry_of IS NOT NULL
      ) AS x WHERE started_at < previous_end`);
    expect(overlaps[0].n).toBe(0);

    // A second retry finds nothing left to retry (each failed action is retried once).
    const again = await request(t.url).post('/bulk-operations').send({ operation: 'retry', filter }).expect(201);
    expect(again.body.applied).toBe(0);
  }, 300_000);

  it('cancels by group and time range, and lists the audit newest first', async () => {
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, run_at) SELECT 60000, 'instance.create', now() + interval '1 hour' FROM generate_series(1, 5) RETURNING id::text`,
    );
    const filter = { lockId: '60000', createdAfter: new Date(Date.now() - 3_600_000).toISOString() };
    const dry = await request(t.url).post('/bulk-operations').send({ operation: 'cancel', filter, dryRun: true }).expect(201);
    expect(dry.body.matched).toBe(5);
    const done = await request(t.url).post('/bulk-operations').send({ operation: 'cancel', filter }).expect(201);
    expect(done.body.applied).toBe(5);
    const { rows: statuses } = await t.pg.query(`SELECT DISTINCT status FROM actions WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
    expect(statuses).toEqual([{ status: 'cancelled' }]);
    const list = await request(t.url).get('/bulk-operations').expect(200);
    expect(list.body.items[0]).toMatchObject({ id: done.body.id, operation: 'cancel', filter });
    expect(Number(list.body.items[0].id)).toBeGreaterThan(Number(list.body.items[1].id));
  });

  // "matched: counted at the start" (docs/operator-controls.md): the operation is bounded by the
  // largest id matched then. Seen failing before: the three actions enqueued while the cancel ran
  // were cancelled too (applied 6 of 3 matched).
  it('leaves alone the actions enqueued while it runs: applied never exceeds matched', async () => {
    const insert = async (n: number) =>
      (
        await t.pg.query<{ id: string }>(
          `INSERT INTO actions (type, run_at) SELECT 'bulk.bounded', now() + interval '1 hour' FROM generate_series(1, $1::int) RETURNING id::text`,
          [n],
        )
      ).rows.map((r) => r.id);
    const before = await insert(3);
    // Hold the first matched row, so the cancel's first chunk waits while more actions arrive.
    const holder = await t.db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM actions WHERE id = $1 FOR UPDATE', [before[0]]);
    const cancel = request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { type: 'bulk.bounded' } })
      .then((r) => r);
    await waitForLockWaiters(t.db.name);
    const during = await insert(3);
    await holder.query('COMMIT');
    const done = await cancel;
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ matched: 3, applied: 3 });
    const status = async (ids: string[]) => (await t.pg.query(`SELECT DISTINCT status FROM actions WHERE id = ANY($1::bigint[])`, [ids])).rows;
    expect(await status(before)).toEqual([{ status: 'cancelled' }]);
    expect(await status(during)).toEqual([{ status: 'pending' }]);
  });

  it('refuses an empty filter and a status the operation does not take, naming the field', async () => {
    const empty = await request(t.url).post('/bulk-operations').send({ operation: 'cancel', filter: {} });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body.message)).toContain('filter');
    const done = await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'retry', filter: { status: 'done' } });
    expect(done.status).toBe(400);
    expect(JSON.stringify(done.body.message)).toContain('filter.status');
    await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'delete', filter: { type: 'x' } })
      .expect(400);
  });

  it('answers each POST with its own audit row and lists 12 operations by number, newest first, paging with before', async () => {
    // Ids past 9 are where text order ("9" > "12") and number order part.
    const made: { id: string; operation: string; dryRun: boolean }[] = [];
    for (let i = 0; i < 12; i++) {
      const operation = i % 2 === 0 ? 'cancel' : 'retry';
      const dryRun = i % 3 !== 0;
      const res = await request(t.url)
        .post('/bulk-operations')
        .send({ operation, filter: { errorContains: `order-check-${i}` }, dryRun })
        .expect(201);
      expect(res.body).toMatchObject({ operation, dryRun, filter: { errorContains: `order-check-${i}` }, matched: 0 });
      if (made.length > 0) expect(BigInt(res.body.id)).toBeGreaterThan(BigInt(made[made.length - 1].id));
      made.push({ id: res.body.id, operation, dryRun });
    }
    const newestFirst = made.map((m) => m.id).reverse();
    const list = (await request(t.url).get('/bulk-operations').expect(200)).body.items.map((o: { id: string }) => o.id);
    expect(list.slice(0, 12)).toEqual(newestFirst);
    const asNumbers = list.map((id: string) => BigInt(id));
    expect(asNumbers).toEqual([...asNumbers].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    const page = (await request(t.url).get(`/bulk-operations?before=${made[6].id}`).expect(200)).body.items.map((o: { id: string }) => o.id);
    expect(page.slice(0, 6)).toEqual(newestFirst.slice(6));
    expect(page.every((id: string) => BigInt(id) < BigInt(made[6].id))).toBe(true);
  });

  it('refuses a missing or malformed filter with one message naming it, writing no audit row', async () => {
    const audits = async () => (await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_bulk_operations`)).rows[0].n;
    const before = await audits();
    const expected = 'an object naming at least one of type, lockId, groupKey, status, errorContains, createdAfter, createdBefore';
    const missing = await request(t.url).post('/bulk-operations').send({ operation: 'retry' }).expect(400);
    expect(missing.body.message).toEqual([`filter is required: ${expected}`]);
    for (const filter of [null, 'failed', [{ type: 'x' }], 5]) {
      const res = await request(t.url).post('/bulk-operations').send({ operation: 'cancel', filter }).expect(400);
      expect(res.body.message[0]).toMatch(/^filter (is required|must be an object)/);
    }
    // The date rule of runAt: without an offset the instant would depend on the server's zone.
    const local = await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { createdAfter: '2026-12-01T00:00:00' } })
      .expect(400);
    expect(local.body.message).toEqual([expect.stringMatching(/^filter\.createdAfter must be a date and time with Z or a UTC offset/)]);
    await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { createdBefore: '2026-12-01' } })
      .expect(400);
    await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { createdAfter: '2026-12-01T00:00:00+01:00' }, dryRun: true })
      .expect(201);
    expect(await audits()).toBe(before + 1);
    // The list's query: one rule for before, unknown parameters refused as on every other list route.
    for (const q of ['before=abc', 'before=0', 'before=99999999999999999999']) {
      expect((await request(t.url).get(`/bulk-operations?${q}`).expect(400)).body.message).toEqual(['before must be a positive integer id']);
    }
    await request(t.url).get('/bulk-operations?bogus=1').expect(400);
    // A JSON null is an absent field (was a 500 for lockId); a null dryRun is refused, never read as a real run.
    const nullLock = await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { lockId: null, errorContains: 'null-check' }, dryRun: true })
      .expect(201);
    expect(nullLock.body).toMatchObject({ dryRun: true, matched: 0 });
    const nullDry = await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'cancel', filter: { errorContains: 'null-check' }, dryRun: null })
      .expect(400);
    expect(nullDry.body.message).toEqual(['dryRun must be true or false']);
    expect(await audits()).toBe(before + 2);
  });

  it('says how much a retry stopped by a group depth limit applied: the earlier chunks stay', async () => {
    // Chunk 1 (500 ids): copies into 500 groups of their own. Chunk 2: a copy into a group already at its type's limit.
    await t.pg.query(
      `INSERT INTO actions (lock_id, type, payload, on_failure, run_at)
       SELECT 71000 + n, 'instance.create', '{"durationMs": 0}', 'skip', now() + interval '1 hour' FROM generate_series(0, 499) AS n`,
    );
    await t.pg.query(`INSERT INTO actions (lock_id, type, on_failure, run_at) VALUES (71999, 'instance.update', 'skip', now() + interval '1 hour')`);
    await t.pg.query(
      `UPDATE actions SET status = 'failed', finished_at = now(), last_error = 'depth-stop 503' WHERE lock_id BETWEEN 71000 AND 71999 AND status = 'pending'`,
    );
    await t.pg.query(`INSERT INTO actions (lock_id, type, run_at) VALUES (71999, 'instance.update', now() + interval '1 hour')`);
    await request(t.url).put('/group-depth-limits/types/instance.update').send({ maxDepth: 1 }).expect(200);
    try {
      const res = await request(t.url)
        .post('/bulk-operations')
        .send({ operation: 'retry', filter: { errorContains: 'depth-stop 503' } })
        .expect(429);
      expect(res.body.message).toMatch(/^actions: group 71999 would hold 2 unfinished actions, over the max group depth \(type 'instance.update' limit: 1\); /);
      expect(res.body.message).toMatch(/bulk operation \d+ stopped after applying 500 of 501 matched actions/);
      expect(res.body.message).not.toContain('nothing was enqueued');
      const [audit] = (await request(t.url).get('/bulk-operations').expect(200)).body.items;
      expect(audit).toMatchObject({ operation: 'retry', matched: 501, applied: 500, error: expect.stringContaining('would hold 2') });
      const { rows } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE retry_of IS NOT NULL AND lock_id BETWEEN 71000 AND 71999`);
      expect(rows[0].n).toBe(500);
    } finally {
      await t.pg.query(`DELETE FROM action_group_depth_limits`);
    }
  });
});
