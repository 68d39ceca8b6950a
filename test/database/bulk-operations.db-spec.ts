import request from 'supertest';
import { waitFor, withTestApp } from '../support';

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
});
