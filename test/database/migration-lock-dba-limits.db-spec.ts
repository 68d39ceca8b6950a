import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadSettings } from '../../src/config/settings';
import { buildDataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { MIGRATION_LOCK_KEY } from '../../src/database/migration-lock';
import { MigrationsService } from '../../src/database/migrations.service';
import { DEFAULT_PLACEMENT, LEGACY_PLACEMENT, QueuePlacement } from '../../src/database/queue-schema';
import { upgradeRelease01Schema } from '../../src/database/release-0.1-upgrade';
import { migratedUpTo } from '../fixtures/previous-releases';
import { createRelease01Schema } from '../fixtures/schema-0.1/release-0.1-schema';
import { sleep, waitFor, waitForLockWaiters, withTestDatabase } from '../support';

/** A DBA's limit in these tests (ms); the tests outwait it three times over. */
const DBA_LIMIT_MS = 200;

/** Holders of the migration lock in `dbName` (pids), by pg_locks. */
async function migrationLockHolders(c: Client, dbName: string): Promise<number[]> {
  const { rows } = await c.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks AS l JOIN pg_database AS d ON d.oid = l.database
     WHERE d.datname = $1 AND l.locktype = 'advisory' AND l.granted
       AND ((l.classid::bigint << 32) | l.objid::bigint) = $2`,
    [dbName, MIGRATION_LOCK_KEY],
  );
  return rows.map((r) => r.pid);
}

/** A MigrationsService on its own DataSource, as an instance's start-up runs it (in `placement`, as start-up chose it). */
async function startMigrating(url: string, placement: QueuePlacement = DEFAULT_PLACEMENT): Promise<{ done: Promise<void>; dataSource: DataSource }> {
  const dataSource = await new DataSource(buildDataSourceOptions(url, 3, placement)).initialize();
  const service = new MigrationsService({ dataSource, url, owned: true, placement }, { database: { url }, runMigrations: true }, loadSettings({}));
  const done = service.onModuleInit();
  done.catch(() => undefined); // awaited by the test; not an unhandled rejection meanwhile
  return { done, dataSource };
}

// Instances that start together serialise their migrations on a transaction-level
// advisory lock held by an open transaction while the migrations run on other
// connections. A DBA's session limits must not end that wait or that hold early.
// Seen failing on the code before the fix: the holder was terminated by
// idle_in_transaction_session_timeout (lock gone after 200 ms), and the waiter's
// pg_advisory_xact_lock was cancelled by statement_timeout (SQLSTATE 57014).
describe("the migration lock under a DBA's session limits", () => {
  const idle = withTestDatabase('miglock_idle', { migrated: false });

  it('is held for the whole migration even with idle_in_transaction_session_timeout shorter than it', async () => {
    const c = await idle.connect();
    await c.query(`ALTER DATABASE ${idle.name} SET idle_in_transaction_session_timeout = '${DBA_LIMIT_MS}ms'`);
    // The blocker makes migration 001 wait (its CREATE SEQUENCE meets the blocker's
    // uncommitted one of the same name) while the lock's transaction sits idle; the
    // blocker itself is exempt from the limit and rolls back, so 001 then succeeds.
    // In the queue's schema, made beforehand so that the migrations find it.
    await c.query(`CREATE SCHEMA ${DEFAULT_PLACEMENT.schema}`);
    const blocker = await idle.connect();
    await blocker.query(`SET idle_in_transaction_session_timeout = 0`);
    await blocker.query('BEGIN');
    await blocker.query(`CREATE SEQUENCE ${DEFAULT_PLACEMENT.schema}.actions_id_seq`);
    const { done, dataSource } = await startMigrating(idle.url);
    try {
      const [holder] = await waitFor(async () => {
        const holders = await migrationLockHolders(c, idle.name);
        return holders.length > 0 && holders;
      });
      await waitForLockWaiters(idle.name, 1);
      await sleep(3 * DBA_LIMIT_MS); // the limit would have ended the holder's session by now
      expect(await migrationLockHolders(c, idle.name)).toEqual([holder]);
      await blocker.query('ROLLBACK');
      await done;
      const { rows } = await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id');
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await done.catch(() => undefined);
      await dataSource.destroy();
    }
  });

  const waiting = withTestDatabase('miglock_wait', { migrated: false });

  it('is waited for by a second instance however long, whatever statement_timeout and lock_timeout say', async () => {
    const c = await waiting.connect();
    await c.query(`ALTER DATABASE ${waiting.name} SET statement_timeout = '${DBA_LIMIT_MS}ms'`);
    await c.query(`ALTER DATABASE ${waiting.name} SET lock_timeout = '${DBA_LIMIT_MS}ms'`);
    // Another instance migrating: it holds the lock for longer than the limits.
    const other = await waiting.connect();
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const { done, dataSource } = await startMigrating(waiting.url);
    try {
      await waitForLockWaiters(waiting.name, 1);
      await sleep(3 * DBA_LIMIT_MS); // either limit would have cancelled the wait by now
      await other.query('COMMIT');
      await done;
      const { rows } = await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id');
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await done.catch(() => undefined);
      await dataSource.destroy();
    }
  });
});

// A conversion or a migration that waits for a producer's open transaction (it must:
// docs/operations.md, "Upgrading from 0.1") or runs long on a big table is not a
// query a DBA's statement_timeout was meant for; cancelled, it would be retried at
// every start-up and never complete. Seen failing before the fix: SQLSTATE 57014.
describe("schema changes under a DBA's statement_timeout", () => {
  const from01 = withTestDatabase('miglimit_01', { migrated: false });

  it('the 0.1 conversion waits for a producer longer than statement_timeout and lock_timeout, then completes', async () => {
    const c = await from01.connect();
    await createRelease01Schema(c);
    const producer = await from01.connect();
    await producer.query('BEGIN');
    await producer.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'instance.create')`);
    await c.query(`ALTER DATABASE ${from01.name} SET statement_timeout = '${DBA_LIMIT_MS}ms'`);
    await c.query(`ALTER DATABASE ${from01.name} SET lock_timeout = '${DBA_LIMIT_MS}ms'`);
    const dataSource = await new DataSource(buildDataSourceOptions(from01.url, 2, LEGACY_PLACEMENT)).initialize();
    try {
      const conversion = upgradeRelease01Schema(dataSource, 'typeorm_migrations');
      conversion.catch(() => undefined); // awaited below
      await waitForLockWaiters(from01.name, 1);
      await sleep(3 * DBA_LIMIT_MS); // either limit would have cancelled the conversion by now
      await producer.query('COMMIT');
      expect(await conversion).toBe(true);
      expect((await c.query('SELECT count(*)::int AS n FROM actions')).rows).toEqual([{ n: 1 }]);
    } finally {
      await producer.query('ROLLBACK').catch(() => undefined);
      await dataSource.destroy();
    }
  });

  const later = withTestDatabase('miglimit_later', { migrated: false });

  it('a migration after the baseline waits for a reader of actions longer than statement_timeout and lock_timeout', async () => {
    await migratedUpTo(later.url, 'GuardOperatorSql1764460800010');
    const c = await later.connect();
    const reader = await later.connect();
    await reader.query('BEGIN');
    await reader.query('SELECT count(*) FROM actions'); // holds ACCESS SHARE: 017's ALTER TABLE waits
    await c.query(`ALTER DATABASE ${later.name} SET statement_timeout = '${DBA_LIMIT_MS}ms'`);
    await c.query(`ALTER DATABASE ${later.name} SET lock_timeout = '${DBA_LIMIT_MS}ms'`);
    const { done, dataSource } = await startMigrating(later.url, LEGACY_PLACEMENT);
    try {
      await waitForLockWaiters(later.name, 1);
      await sleep(3 * DBA_LIMIT_MS);
      await reader.query('COMMIT');
      await done;
      const { rows } = await c.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id');
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await reader.query('ROLLBACK').catch(() => undefined);
      await done.catch(() => undefined);
      await dataSource.destroy();
    }
  });
});
