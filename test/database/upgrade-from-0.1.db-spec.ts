import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { MigrationsService } from '../../src/database/migrations.service';
import { Release01InstancesConnectedError, upgradeRelease01Schema } from '../../src/database/release-0.1-upgrade';
import { createRelease01Schema } from '../fixtures/schema-0.1/release-0.1-schema';
import { waitFor, withTestDatabase } from '../support';
import { Client } from 'pg';

// The upgrade itself, with work in flight, is in upgrade.db-spec.ts.
describe('upgrade from release 0.1: refused while a 0.1 instance is connected', () => {
  const db = withTestDatabase('upgrade01refused', { migrated: false });

  it('names the 0.1 connections and leaves the 0.1 schema as it was', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'instance.create')`);
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

describe('upgrade from release 0.1 with runMigrations: false (an app that migrates on its own)', () => {
  const db = withTestDatabase('upgrade01nomigrate', { migrated: false });

  it('stops start-up asking for one start with runMigrations: true, and leaves the 0.1 schema as it was', async () => {
    const c = await db.connect();
    await createRelease01Schema(c);
    const dataSource = await new DataSource(buildDataSourceOptions(db.url, 2)).initialize();
    try {
      const service = new MigrationsService({ dataSource, url: db.url, owned: true }, { database: { url: db.url }, runMigrations: false });
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
