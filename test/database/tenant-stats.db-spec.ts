import request from 'supertest';
import { TENANT_STATS_SQL } from '../../src/actions/sql/tenant-stats.sql';
import { OTHER_TENANTS_LABEL } from '../../src/metrics/metric-names';
import { metricSample, sleep, waitFor, withTestApp } from '../support';

/** The samples of one metric family in an exposition, as `labels -> value`. */
function series(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) found.set(m[1], Number(m[2]));
  return found;
}

/**
 * Tenants made visible (docs/tenants.md, "Watching tenants"): `GET /stats`
 * lists the STATS_TENANTS_TOP tenants with the largest backlog and sums the
 * rest, from live work only; `/metrics` labels at most METRICS_TENANTS_TOP
 * tenants and sums the rest under tenant="_other", however many tenants
 * there are.
 */
describe('tenant figures of /stats', () => {
  const t = withTestApp('tenantstats', { env: { WORKER_ENABLED: 'false', STATS_TENANTS_TOP: '2' } });

  beforeAll(async () => {
    const pg = t.pg;
    // Finished history of a tenant with no live work (triggers off for the bulk load): never listed, never read.
    await pg.query('SET session_replication_role = replica');
    await pg.query(
      `INSERT INTO actions (id, lock_id, type, payload, tenant, status, is_head, holds_group, attempts, on_failure, run_at, created_at, started_at, finished_at)
       SELECT nextval('actions_id_seq'), i % 500, 'instance.create', '{}', 'history', 'done', false, false, 1, 'skip',
              now() - interval '2 days', now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
       FROM generate_series(1, 20000) AS i`,
    );
    await pg.query('SET session_replication_role = origin');
    await pg.query('ANALYZE actions');
    // acme: a head that waits from now on, then 3 behind it and one ungrouped: backlog 5.
    await pg.query(`INSERT INTO actions (lock_id, type, tenant) VALUES (1, 'instance.create', 'acme')`);
    await sleep(1_500);
    await pg.query(`INSERT INTO actions (lock_id, type, tenant) SELECT 1, 'instance.update', 'acme' FROM generate_series(1, 3)`);
    await pg.query(`INSERT INTO actions (type, tenant) VALUES ('instance.create', 'acme')`);
    // globex: 2 scheduled a day ahead (nothing due), 1 running; its settings give weight 3, at most 2 running.
    await pg.query(`INSERT INTO actions (type, tenant, run_at) SELECT 'instance.create', 'globex', now() + interval '1 day' FROM generate_series(1, 2)`);
    await pg.query(`INSERT INTO action_tenant_settings (tenant, weight, max_running) VALUES ('globex', 3, 2)`);
    const running = async (tenant: string) => {
      const { rows } = await pg.query<{ id: string }>(`INSERT INTO actions (type, tenant) VALUES ('instance.create', $1) RETURNING id`, [tenant]);
      await pg.query(`UPDATE actions SET status = 'running', attempts = 1, lease_owner = 'w', lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [
        rows[0].id,
      ]);
    };
    await running('globex');
    // Beyond the top 2: default (one pending, due) and initech (one running, nothing pending).
    await pg.query(`INSERT INTO actions (type) VALUES ('instance.create')`);
    await running('initech');
  });

  it('lists the tenants with the largest backlog, their running, oldest wait and settings, and sums the rest', async () => {
    const { body } = await request(t.url).get('/stats').expect(200);
    expect(body.tenants.top).toEqual([
      { tenant: 'acme', backlog: 5, running: 0, oldestWaitingAgeSeconds: expect.any(Number), weight: 1, maxRunning: null },
      { tenant: 'globex', backlog: 2, running: 1, oldestWaitingAgeSeconds: null, weight: 3, maxRunning: 2 },
    ]);
    // acme's head has waited since its enqueue, 1.5 s before the others; the ones behind it do not count.
    expect(body.tenants.top[0].oldestWaitingAgeSeconds).toBeGreaterThanOrEqual(1.4);
    expect(body.tenants.top[0].oldestWaitingAgeSeconds).toBeLessThan(60);
    expect(body.tenants.others).toEqual({ tenants: 2, backlog: 1, running: 1, oldestWaitingAgeSeconds: expect.any(Number) });
    expect(body.tenants.others.oldestWaitingAgeSeconds).toBeLessThan(body.tenants.top[0].oldestWaitingAgeSeconds);
    // The sums agree with the queue-wide counts.
    expect(5 + 2 + body.tenants.others.backlog).toBe(body.byStatus.pending);
    expect(1 + body.tenants.others.running).toBe(body.byStatus.running);
  });

  it("shows the tenant on an action and on its group's head (the bounded reads of GET /actions/:id and GET /groups/:lockId)", async () => {
    const { rows } = await t.pg.query<{ id: string }>(`SELECT id::text FROM actions WHERE tenant = 'acme' AND lock_id = 1 ORDER BY id LIMIT 1`);
    expect((await request(t.url).get(`/actions/${rows[0].id}`).expect(200)).body.tenant).toBe('acme');
    expect((await request(t.url).get('/groups/1').expect(200)).body.head).toEqual(expect.objectContaining({ id: rows[0].id, tenant: 'acme' }));
  });

  it('reads no finished row: the statement walks the live indexes, never the whole table', async () => {
    const plan = (await t.pg.query(`EXPLAIN ${TENANT_STATS_SQL}`, [10])).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan on actions/);
    expect(plan).toMatch(/actions_pending_idx/);
    expect(plan).toMatch(/actions_running_idx/);
  });
});

describe('tenant gauges of /metrics with 100 000 tenants', () => {
  const t = withTestApp('tenantmetrics', { env: { WORKER_ENABLED: 'false' } });

  it('labels the 10 tenants with the largest backlog and sums the other 99 990 under tenant="_other"', async () => {
    // One pending action for each of 100 000 tenants, and 40 more for "big".
    await t.pg.query(`INSERT INTO actions (type, tenant) SELECT 'instance.create', 't' || lpad(i::text, 6, '0') FROM generate_series(1, 100000) AS i`);
    await t.pg.query(`INSERT INTO actions (type, tenant) SELECT 'instance.create', 'big' FROM generate_series(1, 40)`);
    const text = await waitFor(async () => {
      const body = (await request(t.url).get('/metrics').expect(200)).text;
      return metricSample(body, 'action_queue_tenant_backlog', 'tenant="big"') === 40 ? body : undefined;
    }, 20_000);
    const backlog = series(text, 'action_queue_tenant_backlog');
    expect(backlog.size).toBe(11);
    // "big" first, then the first nine of the tied tenants by name.
    expect([...backlog.keys()].sort()).toEqual(
      ['tenant="big"', ...Array.from({ length: 9 }, (_, i) => `tenant="t${String(i + 1).padStart(6, '0')}"`), `tenant="${OTHER_TENANTS_LABEL}"`].sort(),
    );
    expect(backlog.get(`tenant="${OTHER_TENANTS_LABEL}"`)).toBe(100_000 - 9);
    expect(series(text, 'action_queue_tenant_running').size).toBe(11);
    expect(series(text, 'action_queue_tenant_oldest_waiting_age_seconds').size).toBe(11);
    expect(metricSample(text, 'action_queue_tenant_running', `tenant="${OTHER_TENANTS_LABEL}"`)).toBe(0);
    // /stats keeps its own bound: 10 listed, the rest summed.
    const { body } = await request(t.url).get('/stats').expect(200);
    expect(body.tenants.top).toHaveLength(10);
    expect(body.tenants.others).toEqual(expect.objectContaining({ tenants: 100_001 - 10, backlog: 100_000 - 9 }));
  });

  it('drops the series of a tenant that has no work left', async () => {
    await t.pg.query(`DELETE FROM actions WHERE tenant = 'big'`);
    const text = (await request(t.url).get('/metrics').expect(200)).text;
    expect(metricSample(text, 'action_queue_tenant_backlog', 'tenant="big"')).toBeUndefined();
    expect(series(text, 'action_queue_tenant_backlog').size).toBe(11);
  });
});
