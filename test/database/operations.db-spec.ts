import request from 'supertest';
import { cloneTestDatabase, connect, metricSample as sample, startTestApp, waitFor, withTestApp } from '../support';

describe('operations: health, metrics and roles', () => {
  const t = withTestApp('ops', { env: { WORKER_CONCURRENCY: '4' } });
  const db = t.db;
  let url: string;
  beforeAll(() => ({ url } = t));

  it('reports liveness and readiness with terminus, naming each part', async () => {
    const live = await waitFor(async () => {
      const res = await request(url).get('/health');
      return res.status === 200 ? res : null;
    });
    expect(live.body.status).toBe('ok');
    expect(live.body.info.database.status).toBe('up');
    expect(live.body.info.worker.status).toBe('up');
    expect(live.body.info.worker.lastTickAgeMs).toBeGreaterThanOrEqual(0);

    const ready = await request(url).get('/health/ready').expect(200);
    // Readiness also says whether the database accepts writes and whether stuck handlers hold too many slots.
    expect(Object.keys(ready.body.info).sort()).toEqual(['database', 'migrations', 'worker', 'writable']);
    expect(ready.body.info).toMatchObject({
      database: { status: 'up' },
      migrations: { status: 'up' },
      writable: { status: 'up' },
      worker: { status: 'up', stuckSlots: 0 },
    });
  });

  it('exposes Prometheus metrics that follow a small workload', async () => {
    const { body } = await request(url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.create', lockId: '1', payload: { durationMs: 0 } },
          { type: 'instance.update', lockId: '1', payload: { durationMs: 0 } },
          { type: 'instance.delete', lockId: '2', payload: { durationMs: 0, failAttempts: 1 }, maxAttempts: 1, onFailure: 'block' },
          { type: 'instance.create', lockId: '2', payload: { durationMs: 0 } },
        ],
      })
      .expect(201);
    const ids: string[] = body.actions.map((a: { id: string }) => a.id);
    await waitFor(async () => {
      const all = await Promise.all(ids.slice(0, 3).map((id) => request(url).get(`/actions/${id}`)));
      return all.every((r) => ['done', 'failed'].includes(r.body.status));
    });

    const res = await request(url).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(sample(text, 'action_queue_enqueued_total', 'type="instance.create"')).toBe(2);
    expect(sample(text, 'action_queue_claimed_total', 'type="instance.create"')).toBe(1);
    expect(sample(text, 'action_queue_attempts_ended_total', 'type="instance.update",outcome="done"')).toBe(1);
    expect(sample(text, 'action_queue_attempts_ended_total', 'type="instance.delete",outcome="failed"')).toBe(1);
    expect(sample(text, 'action_queue_handler_duration_seconds_count', 'type="instance.create"')).toBe(1);
    expect(sample(text, 'action_queue_claim_statement_duration_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'action_queue_depth', 'status="done"')).toBe(2);
    expect(sample(text, 'action_queue_depth', 'status="failed"')).toBe(1);
    expect(sample(text, 'action_queue_depth', 'status="pending"')).toBe(1); // behind the blocking failure
    expect(sample(text, 'action_queue_blocked_groups')).toBe(1);
    // The one pending action waits behind the blocked head: it is not claimable, so no age (test/database/admin-reads.db-spec.ts).
    expect(sample(text, 'action_queue_oldest_pending_age_seconds')).toBe(0);
    expect(sample(text, 'action_queue_worker_slots')).toBe(4);
    expect(sample(text, 'action_queue_worker_busy_slots')).toBe(0);
    expect(sample(text, 'action_queue_lease_expirations_total')).toBe(0);
    expect(sample(text, 'action_queue_fenced_completions_total')).toBe(0);
    expect(text).toContain('process_cpu_seconds_total');
    // Bounded labels: no ids or lock ids.
    expect(text).not.toMatch(/lock_?id=|action_?id=/i);
  });

  it('serves only health and metrics in a worker-only instance, and no worker in an API-only one', async () => {
    const worker = await startTestApp(db.url, { API_ENABLED: 'false' });
    const api = await startTestApp(db.url, { WORKER_ENABLED: 'false' });
    try {
      await request(worker.url).get('/health').expect(200);
      await request(worker.url).get('/health/ready').expect(200);
      await request(worker.url).get('/metrics').expect(200);
      for (const path of ['/actions', '/stats', '/groups/1', '/docs-json']) await request(worker.url).get(path).expect(404);
      await request(worker.url).post('/actions').send({ type: 'instance.create' }).expect(404);

      const health = await request(api.url).get('/health').expect(200);
      expect(health.body.info.worker).toEqual({ status: 'up', enabled: false });
      await request(api.url).get('/stats').expect(200);
      const metrics = await request(api.url).get('/metrics').expect(200);
      expect(sample(metrics.text, 'action_queue_worker_slots')).toBe(0);

      // The API-only instance enqueues, the worker-only instance runs it.
      const created = await request(api.url)
        .post('/actions')
        .send({ type: 'instance.create', lockId: '77', payload: { durationMs: 0 } })
        .expect(201);
      await waitFor(async () => (await request(api.url).get(`/actions/${created.body.id}`)).body.status === 'done');
    } finally {
      await worker.app.close();
      await api.app.close();
    }
  });
});

describe('operations: health when the database goes away', () => {
  it('answers 503 naming the database when its database was dropped', async () => {
    const db = await cloneTestDatabase('ops_down');
    const { app, url } = await startTestApp(db.url, { WORKER_ENABLED: 'false' });
    try {
      await request(url).get('/health').expect(200);
      const admin = await connect(new URL('/postgres', db.url).toString());
      try {
        await admin.query(`DROP DATABASE ${db.name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      const live = await request(url).get('/health').expect(503);
      expect(live.body.status).toBe('error');
      expect(live.body.error.database.status).toBe('down');
      const ready = await request(url).get('/health/ready').expect(503);
      expect(ready.body.error.database.status).toBe('down');
      // Metrics still answer (the gauges keep their last values).
      await request(url).get('/metrics').expect(200);
    } finally {
      await app.close().catch(() => undefined);
      await db.drop();
    }
  });
});
