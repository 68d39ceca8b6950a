import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { Release01InstancesConnectedError, upgradeRelease01Schema } from '../../src/database/release-0.1-upgrade';
import { createRelease01Schema } from '../fixtures/schema-0.1/release-0.1-schema';
import { startTestApp, waitFor, withTestDatabase } from '../support';
import { Client } from 'pg';

/** Lease of the action left running by the 0.1 instance (ms): long enough to outlast the upgrade's start-up. */
const OLD_LEASE_MS = 4_000;

interface Row {
  id: string;
  lock_id: string | null;
  status: string;
  idempotency_key: string | null;
}

/** Enqueues one demo action with plain SQL (as 0.1's producers did) and returns its id. */
async function enqueue(c: Client, lockId: number | null, step: string, idempotencyKey: string | null = null): Promise<string> {
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO actions (lock_id, type, payload, idempotency_key) VALUES ($1, 'instance.create', $2, $3) RETURNING id`,
    [lockId, { durationMs: 20, step }, idempotencyKey],
  );
  return rows[0].id;
}

/** Claims with 0.1's own function, as a 0.1 worker did; returns the ids taken. */
async function claim01(c: Client, limit: number, leaseMs: number): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>(`SELECT id FROM aq_claim_actions('old-worker', ARRAY['instance.create'], $1, $2)`, [limit, leaseMs]);
  return rows.map((r) => r.id);
}

/** Ends attempt 1 of `id` with 0.1's own function: `done` or `failed`. */
async function finish01(c: Client, id: string, status: 'done' | 'failed'): Promise<void> {
  await c.query(
    `SELECT * FROM aq_finish_attempts('old-worker', ARRAY[$1::bigint], ARRAY[1], ARRAY[$2::text], ARRAY[$3::jsonb], ARRAY[$4::text],
                                      ARRAY[0], ARRAY[$5::text], '{}'::text[], 0, 0)`,
    [id, status, status === 'done' ? { ok: true } : null, status === 'done' ? null : 'boom', status === 'done' ? 'done' : 'error'],
  );
}

describe('upgrade from release 0.1 (commit ef5d9c2) with work in flight', () => {
  const db = withTestDatabase('upgrade01', { migrated: false });

  it('converts the schema in place: nothing lost, groups run in order, a live lease is honoured, keys still deduplicate', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);

    // Group 10: a done action (with history and a key), one running under a
    // 0.1 lease, two pending behind it.
    const g10 = [await enqueue(c, 10, '10-1', 'key-done')];
    // Group 20: a failed head (policy block) and two pending behind it.
    const g20 = [await enqueue(c, 20, '20-1')];
    expect(await claim01(c, 2, 60_000)).toEqual([...g10, ...g20]);
    await finish01(c, g10[0], 'done');
    await finish01(c, g20[0], 'failed');
    g10.push(await enqueue(c, 10, '10-2'));
    expect(await claim01(c, 1, OLD_LEASE_MS)).toEqual([g10[1]]);
    g10.push(await enqueue(c, 10, '10-3', 'key-pending'), await enqueue(c, 10, '10-4'));
    g20.push(await enqueue(c, 20, '20-2'), await enqueue(c, 20, '20-3'));
    // Group 30: pending only; and one action of no group.
    const g30 = [await enqueue(c, 30, '30-1'), await enqueue(c, 30, '30-2'), await enqueue(c, 30, '30-3')];
    const loose = await enqueue(c, null, 'loose');
    const {
      rows: [lease],
    } = await c.query<{ lease_expires_at: Date }>('SELECT lease_expires_at FROM actions WHERE id = $1', [g10[1]]);
    const before = (await c.query<Row>('SELECT id, lock_id, status, idempotency_key FROM actions ORDER BY id')).rows;
    expect(before.map((r) => r.status)).toEqual([
      'done',
      'failed',
      'running',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    const [{ last_value: lastId }] = (await c.query<{ last_value: string }>('SELECT last_value FROM actions_id_seq')).rows;

    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '8', LEASE_MS: '2000' });
    try {
      // The schema is this release's, recorded as such; the 0.1 one is gone.
      const migrations = (await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
      expect(migrations).toEqual(MIGRATIONS.map((m) => m.name));
      expect((await c.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'aq_release_0_1'`)).rowCount).toBe(0);

      // Everything runs except the blocked group 20.
      const finished = [...g10, ...g30, loose];
      await waitFor(async () => {
        const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [finished]);
        return rows[0].n === finished.length;
      });
      // The 0.1 lease was honoured: its action ran again only after that lease expired, once.
      const trace = (await request(url).get(`/actions/${g10[1]}`).expect(200)).body as {
        trace: { attempt: number; workerId: string; outcome: string; startedAt: string }[];
      };
      expect(trace.trace.map((t) => [t.attempt, t.workerId === 'old-worker', t.outcome])).toEqual([
        [1, true, 'lease_expired'],
        [2, false, 'done'],
      ]);
      expect(new Date(trace.trace[1].startedAt).getTime()).toBeGreaterThanOrEqual(lease.lease_expires_at.getTime());
      // History and result of the action 0.1 finished.
      const done01 = (await request(url).get(`/actions/${g10[0]}`).expect(200)).body as { result: unknown; trace: { workerId: string; outcome: string }[] };
      expect(done01.result).toEqual({ ok: true });
      expect(done01.trace).toEqual([expect.objectContaining({ workerId: 'old-worker', outcome: 'done' })]);

      // Group 20 is still blocked by its failed head.
      const group20 = (await request(url).get('/groups/20').expect(200)).body as { blocked: boolean; head: { id: string } };
      expect(group20).toMatchObject({ blocked: true, head: { id: g20[0] } });
      expect((await c.query(`SELECT id FROM actions WHERE id = ANY($1) AND status = 'pending'`, [g20.slice(1)])).rowCount).toBe(2);

      // Keys of 0.1 still deduplicate (200 with the existing action).
      const again = await request(url).post('/actions').send({ type: 'instance.create', lockId: 10, idempotencyKey: 'key-done' }).expect(200);
      expect(again.body.id).toBe(g10[0]);
      const againPending = await request(url).post('/actions').send({ type: 'instance.create', lockId: 10, idempotencyKey: 'key-pending' }).expect(200);
      expect(againPending.body.id).toBe(g10[2]);

      // New work takes ids after 0.1's and queues behind the old work; the retried head unblocks group 20 in order.
      const fresh = await request(url)
        .post('/actions')
        .send({ type: 'instance.create', lockId: 20, payload: { durationMs: 20 } })
        .expect(201);
      expect(BigInt(fresh.body.id)).toBeGreaterThan(BigInt(lastId));
      await request(url).post(`/actions/${g20[0]}/retry`).expect(200);
      const group20All = [...g20, fresh.body.id as string];
      await waitFor(async () => {
        const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [group20All]);
        return rows[0].n === group20All.length;
      });

      // Nothing lost: every 0.1 action is still there, with its group and key.
      const after = (await c.query<Row>('SELECT id, lock_id, status, idempotency_key FROM actions WHERE id <= $1 ORDER BY id', [lastId])).rows;
      expect(after.map(({ id, lock_id, idempotency_key }) => ({ id, lock_id, idempotency_key }))).toEqual(
        before.map(({ id, lock_id, idempotency_key }) => ({ id, lock_id, idempotency_key })),
      );
      // Group order: in each group, every action started after the one before it finished.
      const { rows: violations } = await c.query(`
        SELECT a.id, b.id AS next_id FROM actions AS a
        JOIN LATERAL (SELECT * FROM actions AS n WHERE n.lock_id = a.lock_id AND n.id > a.id ORDER BY n.id LIMIT 1) AS b ON true
        WHERE a.lock_id IS NOT NULL
          AND (SELECT min(t.started_at) FROM action_attempts AS t WHERE t.action_id = b.id)
            < (SELECT max(t.finished_at) FROM action_attempts AS t WHERE t.action_id = a.id)`);
      expect(violations).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('upgrade from release 0.1: refused while a 0.1 instance is connected', () => {
  const db = withTestDatabase('upgrade01refused', { migrated: false });

  it('names the 0.1 connections and leaves the 0.1 schema as it was', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    await enqueue(c, 1, 'kept');
    // A 0.1 instance's pool connection, as 0.1 named it.
    const old = new Client({ connectionString: db.url, application_name: 'ordered-action-queue' });
    await old.connect();
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2)).initialize();
    try {
      const attempt = upgradeRelease01Schema(dataSource, 'typeorm_migrations');
      await expect(attempt).rejects.toThrow(Release01InstancesConnectedError);
      await expect(attempt).rejects.toThrow(/version 0\.1 instances are still connected to it \(pid \d+.*Stop every 0\.1 instance/);
      const migrations = (await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
      expect(migrations).toEqual(['CreateActionQueue1764460800000', 'AddClaimAndFinishFunctions1764460900000']);
      expect((await c.query(`SELECT status FROM actions`)).rows).toEqual([{ status: 'pending' }]);

      await old.end();
      await waitFor(
        async () =>
          (await c.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ordered-action-queue'`)).rowCount === 0,
      );
      expect(await upgradeRelease01Schema(dataSource, 'typeorm_migrations')).toBe(true);
      expect((await c.query(`SELECT status, is_head, charged_attempts FROM actions`)).rows).toEqual([
        { status: 'pending', is_head: true, charged_attempts: 0 },
      ]);
      // A second run finds nothing to convert.
      expect(await upgradeRelease01Schema(dataSource, 'typeorm_migrations')).toBe(false);
    } finally {
      await old.end().catch(() => undefined);
      await dataSource.destroy();
    }
  });
});
