import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { QUEUE_STATS_COUNT_CAP, QUEUE_STATS_EXACT_MAX_BYTES } from '../../src/actions/stats/queue-stats.reader';
import { BLOCKED_GROUPS_SQL, DEEPEST_GROUPS_SQL, GROUP_TIMELINE_SQL } from '../../src/actions/sql/group-views.sql';
import { QUEUE_STATS_SQL } from '../../src/actions/sql/queue-stats.sql';
import { cloneTestDatabase, connect, metricSample as sample, sleep, startTestApp, TestDatabase, waitFor } from '../support';

describe('admin reads: the oldest due age', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    db = await cloneTestDatabase('admin_age');
    ({ app, url } = await startTestApp(db.url, { WORKER_ENABLED: 'false' }));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('does not count an action scheduled 24 h ahead: after 3 s the age is null and the gauge 0', async () => {
    const runAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    await request(url).post('/actions').send({ type: 'instance.create', runAt }).expect(201);
    await sleep(3_000);
    const stats = await request(url).get('/stats').expect(200);
    expect(stats.body.oldestPendingAgeSeconds).toBeNull();
    expect(stats.body.byStatus.pending).toBe(1);
    expect(stats.body.pendingBreakdown).toEqual({ due: 0, scheduled: 1, paused: 0, waitingForRateLimit: 0, behindHead: 0 });
    const metrics = await request(url).get('/metrics').expect(200);
    expect(sample(metrics.text, 'action_queue_oldest_pending_age_seconds')).toBe(0);
  });

  it('measures a due head from when it became due: a past runAt counts from the enqueue, a waiting non-head not at all', async () => {
    // A head due now, then one enqueued with a runAt years ago (due since its enqueue), then one behind the first.
    await request(url).post('/actions').send({ type: 'instance.create', lockId: '900' }).expect(201);
    await sleep(1_500);
    await request(url).post('/actions').send({ type: 'instance.create', lockId: '901', runAt: '2020-01-01T00:00:00Z' }).expect(201);
    await request(url).post('/actions').send({ type: 'instance.update', lockId: '900' }).expect(201);
    const stats = (await request(url).get('/stats').expect(200)).body;
    expect(stats.pendingBreakdown).toEqual({ due: 2, scheduled: 1, paused: 0, waitingForRateLimit: 0, behindHead: 1 });
    // The first head has waited about 1.5 s; the 2020 one became due at its enqueue, not in 2020.
    expect(stats.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(1.4);
    expect(stats.oldestPendingAgeSeconds).toBeLessThan(30);
    const metrics = await request(url).get('/metrics').expect(200);
    expect(sample(metrics.text, 'action_queue_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(1.4);
    expect(sample(metrics.text, 'action_queue_oldest_pending_age_seconds')).toBeLessThan(30);
  });
});

describe('admin reads: groups, timeline, activity', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    db = await cloneTestDatabase('admin_reads');
    ({ app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '4' }));
    // Groups 5 and 6 block on a failing head; group 7 drains (its second action retries once).
    const { body } = await request(url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.delete', lockId: '5', payload: { durationMs: 0, failAttempts: 1 }, maxAttempts: 1 },
          { type: 'instance.create', lockId: '5', payload: { durationMs: 0 } },
          { type: 'instance.create', lockId: '5', payload: { durationMs: 0 } },
          { type: 'instance.delete', lockId: '6', payload: { durationMs: 0, failAttempts: 1 }, maxAttempts: 1 },
          { type: 'instance.create', lockId: '6', payload: { durationMs: 0 } },
          { type: 'instance.create', lockId: '7', payload: { durationMs: 20 } },
          { type: 'instance.update', lockId: '7', payload: { durationMs: 20, failAttempts: 1 } },
          { type: 'instance.delete', lockId: '7', payload: { durationMs: 20 } },
        ],
      })
      .expect(201);
    ['a5', 'b5', 'c5', 'a6', 'b6', 'a7', 'b7', 'c7'].forEach((name, i) => (ids[name] = body.actions[i].id));
    await waitFor(async () => {
      const all = await Promise.all(['a5', 'a6', 'c7'].map((n) => request(url).get(`/actions/${ids[n]}`)));
      return all[0].body.status === 'failed' && all[1].body.status === 'failed' && all[2].body.status === 'done';
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('lists blocked groups in lockId order with the failing head, its error and the waiting count, a page at a time', async () => {
    const all = (await request(url).get('/groups/blocked').expect(200)).body;
    expect(all.items.map((g: { lockId: string }) => g.lockId)).toEqual(['5', '6']);
    expect(all.items[0]).toEqual({
      lockId: '5',
      groupKey: null,
      head: expect.objectContaining({
        id: ids.a5,
        type: 'instance.delete',
        attempts: 1,
        maxAttempts: 1,
        lastError: expect.stringContaining('simulated failure'),
      }),
      waiting: 2,
    });
    expect(all.items[1].waiting).toBe(1);
    expect(all.nextCursor).toBeNull();
    const first = (await request(url).get('/groups/blocked?limit=1').expect(200)).body;
    expect(first.items.map((g: { lockId: string }) => g.lockId)).toEqual(['5']);
    expect(first.nextCursor).toBe('5');
    const second = (await request(url).get(`/groups/blocked?limit=1&after=${first.nextCursor}`).expect(200)).body;
    expect(second.items.map((g: { lockId: string }) => g.lockId)).toEqual(['6']);
    const stats = (await request(url).get('/stats').expect(200)).body;
    expect(stats.blockedGroups).toBe(2);
  });

  it('lists the deepest groups first, with their head; drained groups do not appear', async () => {
    const { body } = await request(url).get('/groups/deepest').expect(200);
    expect(body.items).toEqual([
      { lockId: '5', groupKey: null, depth: 3, head: expect.objectContaining({ id: ids.a5, status: 'failed', type: 'instance.delete' }) },
      { lockId: '6', groupKey: null, depth: 2, head: expect.objectContaining({ id: ids.a6, status: 'failed' }) },
    ]);
  });

  it("shows a group's timeline in id order with every attempt: the retry is marked, and no action starts before the previous ended", async () => {
    const { body } = await request(url).get('/groups/7/timeline').expect(200);
    expect(body.lockId).toBe('7');
    expect(body.nextBefore).toBeNull();
    expect(body.actions.map((a: { id: string }) => a.id)).toEqual([ids.a7, ids.b7, ids.c7]);
    expect(body.actions.map((a: { trace: { outcome: string }[] }) => a.trace.map((t) => t.outcome))).toEqual([['done'], ['error', 'done'], ['done']]);
    const attempts = body.actions.flatMap((a: { trace: { startedAt: string; finishedAt: string }[] }) => a.trace);
    for (let i = 1; i < attempts.length; i++) expect(Date.parse(attempts[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(attempts[i - 1].finishedAt));
    // Paging back: the two newest, then the one before them.
    const newest = (await request(url).get('/groups/7/timeline?limit=2').expect(200)).body;
    expect(newest.actions.map((a: { id: string }) => a.id)).toEqual([ids.b7, ids.c7]);
    expect(newest.nextBefore).toBe(ids.b7);
    const older = (await request(url).get(`/groups/7/timeline?limit=2&before=${newest.nextBefore}`).expect(200)).body;
    expect(older.actions.map((a: { id: string }) => a.id)).toEqual([ids.a7]);
    // A blocked group's failed head carries its error; an unknown group is empty, not 404.
    const blocked = (await request(url).get('/groups/5/timeline').expect(200)).body;
    expect(blocked.actions[0]).toEqual(
      expect.objectContaining({ id: ids.a5, status: 'failed', lastError: expect.stringContaining('simulated failure'), current: null }),
    );
    expect(blocked.actions[0].trace[0]).toEqual(expect.objectContaining({ attempt: 1, outcome: 'error' }));
    expect((await request(url).get('/groups/123456/timeline').expect(200)).body).toEqual({ lockId: '123456', actions: [], nextBefore: null });
  });

  it('documents the new routes in the OpenAPI document, with their queries, answers and 400s', async () => {
    const doc = (await request(url).get('/docs-json').expect(200)).body;
    const expected: Record<string, string[]> = {
      '/groups/blocked': ['limit', 'after'],
      '/groups/deepest': ['limit'],
      '/groups/{lockId}/timeline': ['lockId', 'limit', 'before'],
      '/stats/activity': ['minutes'],
    };
    for (const [path, params] of Object.entries(expected)) {
      const op = doc.paths[path].get;
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual([...params].sort());
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
      expect(op.responses['200'].content['application/json'].schema.$ref).toMatch(/#\/components\/schemas\//);
    }
    const stats = doc.components.schemas.StatsResponseDto.properties;
    expect(Object.keys(stats).sort()).toEqual(['blockedGroups', 'byStatus', 'estimated', 'oldestPendingAgeSeconds', 'paused', 'pendingBreakdown', 'tenants']);
    expect(stats.oldestPendingAgeSeconds.description).toMatch(/due, claimable/);
  });

  it('answers 400 naming the field for every malformed query of the new routes', async () => {
    const cases: [string, string][] = [
      ['/groups/blocked?limit=0', 'limit'],
      ['/groups/blocked?limit=abc', 'limit'],
      ['/groups/blocked?after=x1', 'after'],
      ['/groups/blocked?foo=1', 'foo'],
      ['/groups/deepest?limit=101', 'limit'],
      ['/groups/abc/timeline', 'lockId'],
      ['/groups/99999999999999999999/timeline', 'lockId'],
      ['/groups/7/timeline?limit=201', 'limit'],
      ['/groups/7/timeline?before=1.5', 'before'],
      ['/stats/activity?minutes=0', 'minutes'],
      ['/stats/activity?minutes=61', 'minutes'],
    ];
    for (const [path, field] of cases) {
      const res = await request(url).get(path);
      expect(`${path} ${res.status}`).toBe(`${path} 400`);
      expect(JSON.stringify(res.body.message)).toContain(field);
    }
  });

  it('counts every ended action once in the activity buckets, with its latency, however many instances read them at once', async () => {
    const other = await startTestApp(db.url, { WORKER_ENABLED: 'false' });
    const client = await connect(db.url);
    try {
      const truth = (
        await client.query(
          `SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed,
                  max(finished_at) AS last FROM actions WHERE finished_at IS NOT NULL`,
        )
      ).rows[0];
      expect(truth).toEqual(expect.objectContaining({ done: 3, failed: 2 }));
      // Endings are counted once 5 s old, and a bucket is served once complete.
      const totals = async (base: string) => {
        const { body } = await request(base).get('/stats/activity').expect(200);
        const sum = (k: 'done' | 'failed' | 'cancelled') => body.buckets.reduce((n: number, b: Record<string, number>) => n + b[k], 0);
        return { body, done: sum('done'), failed: sum('failed'), cancelled: sum('cancelled') };
      };
      await waitFor(async () => Date.parse((await totals(url)).body.countedUpTo) > Date.parse(truth.last) + 10_000, 40_000, 500);
      // Both instances roll up concurrently many times: nothing is counted twice.
      const reads = await Promise.all(Array.from({ length: 10 }, (_, i) => totals(i % 2 ? other.url : url)));
      for (const r of reads) expect({ done: r.done, failed: r.failed, cancelled: r.cancelled }).toEqual({ done: 3, failed: 2, cancelled: 0 });
      const { body } = reads[0];
      expect(body.bucketSeconds).toBe(10);
      expect(body.buckets.length).toBeGreaterThanOrEqual(89);
      // Latency is known for the actions that ran once (a7, c7, b5... not b7, retried); all are non-negative.
      const measured = body.buckets.filter((b: { meanLatencyMs: number | null }) => b.meanLatencyMs !== null);
      expect(measured.length).toBeGreaterThan(0);
      for (const b of measured) expect(b.maxLatencyMs).toBeGreaterThanOrEqual(0);
    } finally {
      await client.end();
      await other.app.close();
    }
  });
});

describe('admin reads: cost on a large history', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    db = await cloneTestDatabase('admin_large');
    ({ app, url } = await startTestApp(db.url, { WORKER_ENABLED: 'false' }));
    client = await connect(db.url);
    // History written directly (triggers off for the bulk load): 60 000 done and 10 500 failed `skip` actions,
    // enough to pass QUEUE_STATS_EXACT_MAX_BYTES and QUEUE_STATS_COUNT_CAP.
    await client.query(`SET session_replication_role = replica`);
    await client.query(
      `INSERT INTO actions (id, lock_id, type, payload, status, is_head, holds_group, attempts, on_failure, run_at, created_at, started_at, finished_at)
       SELECT nextval('actions_id_seq'), i % 500, 'instance.create', jsonb_build_object('note', repeat('x', 120)),
              CASE WHEN i <= 10500 THEN 'failed' ELSE 'done' END, false, false, 1, 'skip',
              now() - interval '2 days', now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
       FROM generate_series(1, 70500) AS i`,
    );
    await client.query(`SET session_replication_role = origin`);
    // ANALYZE only once the statistics system has the insert: a backend reports its row counts up to 1 s
    // after a statement, and a report that lands after ANALYZE is added to ANALYZE's count (twice the truth).
    await waitFor(async () => {
      const { rows } = await client.query(`SELECT pg_stat_get_live_tuples('actions'::regclass)::int AS n`);
      return rows[0].n >= 70_500;
    });
    await client.query('ANALYZE actions');
  });
  afterAll(async () => {
    await client?.end();
    await app?.close();
    await db?.drop();
  });

  it('labels the counts it estimates, keeps them close to the truth, and never scans the table for /stats', async () => {
    const bytes = Number((await client.query(`SELECT pg_relation_size('actions') AS b`)).rows[0].b);
    expect(bytes).toBeGreaterThan(QUEUE_STATS_EXACT_MAX_BYTES);
    const stats = await waitFor(async () => {
      const { body } = await request(url).get('/stats').expect(200);
      return body.byStatus.done > 0 ? body : null; // the statistics system reports the load within seconds
    });
    expect(stats.estimated).toEqual(['done', 'failed']);
    expect(stats.byStatus.done).toBeGreaterThan(60_000 * 0.9);
    expect(stats.byStatus.done).toBeLessThan(60_000 * 1.1);
    expect(stats.byStatus.failed).toBeGreaterThan(QUEUE_STATS_COUNT_CAP);
    expect(stats.byStatus.failed).toBeLessThan(10_500 * 1.2);
    expect(stats.byStatus).toEqual(expect.objectContaining({ pending: 0, running: 0, cancelled: 0 }));
    const plan = (await client.query(`EXPLAIN ${QUEUE_STATS_SQL}`, [QUEUE_STATS_COUNT_CAP + 1])).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan on actions/);
    const metrics = await request(url).get('/metrics').expect(200);
    expect(sample(metrics.text, 'action_queue_depth', 'status="done"')).toBeGreaterThan(60_000 * 0.9);
  });

  it('walks no finished history for the group reads and the activity roll-up', async () => {
    const explain = async (sql: string, values: unknown[]) => (await client.query(`EXPLAIN ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    for (const [sql, values] of [
      [BLOCKED_GROUPS_SQL, [null, 50]],
      [DEEPEST_GROUPS_SQL, [20]],
      [GROUP_TIMELINE_SQL, ['7', '9223372036854775807', 50]],
    ] as [string, unknown[]][]) {
      expect(await explain(sql, values)).not.toMatch(/Seq Scan on actions/);
    }
    // The roll-up reads endings through actions_finished_at_idx: the two-day-old history is never visited.
    const rollUp = await explain(
      `SELECT a.status FROM actions AS a
       WHERE a.finished_at > now() - interval '1 hour' AND a.finished_at <= now() AND a.finished_at IS NOT NULL AND NOT a.holds_group`,
      [],
    );
    expect(rollUp).toMatch(/actions_finished_at_idx/);
    await request(url).get('/stats/activity').expect(200);
  });
});
