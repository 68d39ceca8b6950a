import { loadSettings } from '../../src/config/settings';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { LEGACY_PLACEMENT } from '../../src/database/queue-schema';
import { MigrationsService } from '../../src/database/migrations.service';
import { Release01InstancesConnectedError, upgradeRelease01Schema } from '../../src/database/release-0.1-upgrade';
import { createRelease01Schema } from '../fixtures/schema-0.1/release-0.1-schema';
import { backendPid, connect, waitFor, waitForLockWaiters, withTestDatabase } from '../support';

// The upgrade itself, with work in flight, is in upgrade.db-spec.ts.
describe('upgrade from release 0.1: refused while a 0.1 instance is connected', () => {
  const db = withTestDatabase('upgrade01refused', { migrated: false });

  it('names the 0.1 connections and leaves the 0.1 schema as it was', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'instance.create')`);
    // A 0.1 instance's pool connection, as 0.1 named it.
    const old = await connect(db.url, { application_name: 'ordered-action-queue' });
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2, LEGACY_PLACEMENT)).initialize();
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

describe('upgrade from release 0.1 with runMigrations: false (an app that migrates on its own)', () => {
  const db = withTestDatabase('upgrade01nomigrate', { migrated: false });

  it('stops start-up asking for one start with runMigrations: true, and leaves the 0.1 schema as it was', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2, LEGACY_PLACEMENT)).initialize();
    try {
      const service = new MigrationsService(
        { dataSource, url: db.url, owned: true, placement: LEGACY_PLACEMENT },
        { database: { url: db.url }, runMigrations: false },
        loadSettings({}),
      );
      await expect(service.onModuleInit()).rejects.toThrow(
        'This database holds a version 0.1 queue schema; start once with runMigrations: true to convert it in place (docs/operations.md, "Upgrading from 0.1")',
      );
      const migrations = (await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map((r) => r.name);
      expect(migrations).toEqual(['CreateActionQueue1764460800000', 'AddClaimAndFinishFunctions1764460900000']);
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('upgrade from release 0.1 while SQL producers insert', () => {
  const db = withTestDatabase('upgrade01producers', { migrated: false });

  it("waits for a producer's open transaction, and an insert queued behind the conversion lands in the new tables", async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    const open = await db.connect();
    const queued = await db.connect();
    await open.query('BEGIN');
    const first = (await open.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES (1, 'instance.create') RETURNING id`)).rows[0].id;
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2, LEGACY_PLACEMENT)).initialize();
    try {
      const conversionPid = async () =>
        (
          await c.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%LOCK TABLE actions, action_groups%' AND wait_event_type = 'Lock'`,
          )
        ).rows[0]?.pid;
      const conversion = upgradeRelease01Schema(dataSource, 'typeorm_migrations');
      await waitFor(conversionPid);
      const queuedPid = await backendPid(queued);
      const second = queued.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES (1, 'instance.create') RETURNING id`);
      await waitForLockWaiters(db.name, 1, [queuedPid], 30_000);
      await open.query('COMMIT');
      expect(await conversion).toBe(true);
      const secondId = (await second).rows[0].id;
      expect(BigInt(secondId)).toBeGreaterThan(BigInt(first));
      // Both in the converted table: the first is its group's head, the second waits behind it.
      const rows = (await c.query('SELECT id, status, is_head, charged_attempts FROM actions ORDER BY id')).rows;
      expect(rows).toEqual([
        { id: first, status: 'pending', is_head: true, charged_attempts: 0 },
        { id: secondId, status: 'pending', is_head: false, charged_attempts: 0 },
      ]);
      expect((await c.query(`SELECT head_id FROM action_groups WHERE lock_id = 1`)).rows).toEqual([{ head_id: first }]);
    } finally {
      await open.query('ROLLBACK').catch(() => undefined);
      await dataSource.destroy();
    }
  });
});
