import { loadSettings } from '../../src/config/settings';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { MigrationsService } from '../../src/database/migrations.service';
import { DEFAULT_PLACEMENT, LEGACY_PLACEMENT } from '../../src/database/queue-schema';
import { QUEUE_APPLICATION_NAME, RELEASE_VERSION } from '../../src/release/release-version';
import { migratedUpTo, PREVIOUS_RELEASES } from '../fixtures/previous-releases';
import { connect, startTestApp, waitFor, withTestDatabase } from '../support';
import { Client } from 'pg';

/** Lease of the action left running by the old release's instance (ms): long enough to outlast the upgrade's start-up. */
const OLD_LEASE_MS = 4_000;

interface Row {
  id: string;
  lock_id: string | null;
  status: string;
  idempotency_key: string | null;
}

/** Enqueues one demo action with plain SQL (as every release's producers may) and returns its id. */
async function enqueue(c: Client, lockId: number | null, step: string, idempotencyKey: string | null = null): Promise<string> {
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO actions (lock_id, type, payload, idempotency_key) VALUES ($1, 'instance.create', $2, $3) RETURNING id`,
    [lockId, { durationMs: 20, step }, idempotencyKey],
  );
  return rows[0].id;
}

/**
 * Upgradable: every release in PREVIOUS_RELEASES (test/fixtures/previous-releases.ts)
 * upgrades to this one with work in flight. Add the next release there.
 */
describe.each(PREVIOUS_RELEASES)('upgrade from release $name with work in flight', (release) => {
  const db = withTestDatabase('upgrade', { migrated: false });

  it('converts the schema in place: nothing lost, groups run in order, a live lease is honoured, keys still deduplicate', async () => {
    const c = await db.connect();
    await release.createSchema(c, db.url);

    // Group 10: a done action (with history and a key), one running under a
    // lease of the old release, two pending behind it.
    const g10 = [await enqueue(c, 10, '10-1', 'key-done')];
    // Group 20: a failed head (policy block) and two pending behind it.
    const g20 = [await enqueue(c, 20, '20-1')];
    expect(await release.claim(c, 2, 60_000)).toEqual([...g10, ...g20]);
    await release.finish(c, g10[0], 'done');
    await release.finish(c, g20[0], 'failed');
    g10.push(await enqueue(c, 10, '10-2'));
    expect(await release.claim(c, 1, OLD_LEASE_MS)).toEqual([g10[1]]);
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
      // The schema is this release's, recorded as such; 0.1's is gone.
      const migrations = (await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
      expect(migrations).toEqual(MIGRATIONS.map((m) => m.name));
      expect((await c.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'aq_release_0_1'`)).rowCount).toBe(0);
      // DATABASE_SCHEMA unset: the install keeps its schema, public; no action_queue schema appears beside it.
      const { rows: place } = await c.query(`SELECT to_regclass('public.actions') IS NOT NULL AS kept, to_regnamespace('action_queue') AS created`);
      expect(place).toEqual([{ kept: true, created: null }]);

      // Everything runs except the blocked group 20.
      const finished = [...g10, ...g30, loose];
      await waitFor(async () => {
        const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [finished]);
        return rows[0].n === finished.length;
      });
      // The old lease was honoured: its action ran again only after that lease expired, once.
      const trace = (await request(url).get(`/actions/${g10[1]}`).expect(200)).body as {
        trace: { attempt: number; workerId: string; outcome: string; startedAt: string }[];
      };
      expect(trace.trace.map((t) => [t.attempt, t.workerId === 'old-worker', t.outcome])).toEqual([
        [1, true, 'lease_expired'],
        [2, false, 'done'],
      ]);
      expect(new Date(trace.trace[1].startedAt).getTime()).toBeGreaterThanOrEqual(lease.lease_expires_at.getTime());
      // History and result of the action the old release finished.
      const doneBefore = (await request(url).get(`/actions/${g10[0]}`).expect(200)).body as { result: unknown; trace: { workerId: string; outcome: string }[] };
      expect(doneBefore.result).toEqual({ ok: true });
      expect(doneBefore.trace).toEqual([expect.objectContaining({ workerId: 'old-worker', outcome: 'done' })]);

      // Group 20 is still blocked by its failed head.
      const group20 = (await request(url).get('/groups/20').expect(200)).body as { blocked: boolean; head: { id: string } };
      expect(group20).toMatchObject({ blocked: true, head: { id: g20[0] } });
      expect((await c.query(`SELECT id FROM actions WHERE id = ANY($1) AND status = 'pending'`, [g20.slice(1)])).rowCount).toBe(2);

      // Old keys still deduplicate (200 with the existing action).
      const again = await request(url).post('/actions').send({ type: 'instance.create', lockId: 10, idempotencyKey: 'key-done' }).expect(200);
      expect(again.body.id).toBe(g10[0]);
      const againPending = await request(url).post('/actions').send({ type: 'instance.create', lockId: 10, idempotencyKey: 'key-pending' }).expect(200);
      expect(againPending.body.id).toBe(g10[2]);

      // New work takes ids after the old ones and queues behind the old work; the retried head unblocks group 20 in order.
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

      // Nothing lost: every old action is still there, with its group and key.
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

describe('an instance and a schema newer than it knows', () => {
  const db = withTestDatabase('upgradenewer');

  it('refuses to start, naming the unknown migration and the release', async () => {
    const c = await db.connect();
    await c.query(`INSERT INTO typeorm_migrations (timestamp, name) VALUES (1893456000000, 'FromTheFuture1893456000000')`);
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2, DEFAULT_PLACEMENT)).initialize();
    try {
      for (const runMigrations of [true, false]) {
        const service = new MigrationsService(
          { dataSource, url: db.url, owned: true, placement: DEFAULT_PLACEMENT },
          { database: { url: db.url }, runMigrations },
          loadSettings({}),
        );
        await expect(service.onModuleInit()).rejects.toThrow(
          `schema in this database is newer than release ${RELEASE_VERSION} knows (migrations FromTheFuture1893456000000 were applied by a later release)`,
        );
      }
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('migrations and instances of another release', () => {
  const db = withTestDatabase('upgradeothers', { migrated: false });

  it('applies no migration while another release is connected, and does once it has gone (its own release never blocks it)', async () => {
    await migratedUpTo(db.url, 'AddAdminReads1764460800009');
    const c = await db.connect();
    const applied = async () => (await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
    const before = await applied();
    const sameRelease = await connect(db.url, { application_name: `${QUEUE_APPLICATION_NAME}:listen` });
    const olderRelease = await connect(db.url, { application_name: 'ordered-action-queue/0.1.9:listen' });
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2, LEGACY_PLACEMENT)).initialize();
    try {
      const service = new MigrationsService(
        { dataSource, url: db.url, owned: true, placement: LEGACY_PLACEMENT },
        { database: { url: db.url }, runMigrations: true },
        loadSettings({}),
      );
      await expect(service.onModuleInit()).rejects.toThrow(
        /migrations GuardOperatorSql1764460800010(, \w+)* are not applied: instances of another release are connected \(pid \d+ ordered-action-queue\/0\.1\.9:listen\)/,
      );
      expect(await applied()).toEqual(before);

      await olderRelease.end();
      await waitFor(
        async () =>
          (await c.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'ordered-action-queue/0.1.9%'`))
            .rowCount === 0,
      );
      await service.onModuleInit();
      expect(await applied()).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await olderRelease.end().catch(() => undefined);
      await sameRelease.end();
      await dataSource.destroy();
    }
  });
});
