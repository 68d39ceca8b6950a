import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource, QueryRunner } from 'typeorm';
import { LIFT_DBA_SESSION_LIMITS } from './dba-session-limits';
import { MIGRATIONS } from './migrations';
import { SQL_MIGRATIONS_DIR } from './migrations/sql-file-migration';

/** The migrations release 0.1.0 (commit ef5d9c2) recorded in the migrations table. */
export const RELEASE_0_1_MIGRATIONS = ['CreateActionQueue1764460800000', 'AddClaimAndFinishFunctions1764460900000'];

/**
 * The last migration of the chain the conversion runs itself (001..010, the
 * baseline of release 0.2.0): upgrade-0.1-copy.sql is written against its
 * schema. The migrations after it run as on any 0.2 database, with the rows.
 */
const BASELINE_MIGRATION = 'GuardOperatorSql1764460800010';

/**
 * `application_name`s of release 0.1's connections (pool and LISTEN). Later
 * releases name theirs `ordered-action-queue/<version>[:role]`.
 */
const RELEASE_0_1_APPLICATION_NAMES = ['ordered-action-queue', 'ordered-action-queue:listen'];

/** A 0.1 instance still connected to the database: the upgrade refuses to run. */
export class Release01InstancesConnectedError extends Error {
  constructor(sessions: { pid: number; client: string | null }[]) {
    const list = sessions.map((s) => `pid ${s.pid}${s.client ? ` from ${s.client}` : ''}`).join(', ');
    super(
      `This database holds a version 0.1 queue schema and version 0.1 instances are still connected to it (${list}). ` +
        'Stop every 0.1 instance, then start this one again: it converts the schema in place, keeping pending, running and ' +
        'failed actions, the history and the idempotency keys (docs/operations.md, "Upgrading from 0.1").',
    );
    this.name = 'Release01InstancesConnectedError';
  }
}

/**
 * Whether the database holds release 0.1's queue schema: its migrations are
 * recorded in `migrationsTable` and none of this release's chain is.
 *
 * @param runner a connected query runner (the queue's search_path).
 * @param migrationsTable the queue's migrations table (`typeorm_migrations`).
 */
export async function holdsRelease01Schema(runner: QueryRunner | DataSource, migrationsTable: string): Promise<boolean> {
  const [{ exists }]: { exists: boolean }[] = await runner.query('SELECT to_regclass($1) IS NOT NULL AS exists', [migrationsTable]);
  if (!exists) return false;
  const rows: { name: string }[] = await runner.query(`SELECT name FROM ${migrationsTable}`);
  const names = new Set(rows.map((r) => r.name));
  return RELEASE_0_1_MIGRATIONS.some((name) => names.has(name)) && !names.has(MIGRATIONS[0].name);
}

/**
 * Converts a release 0.1 database in place, in one transaction, when it holds
 * one (else does nothing): puts the 0.1 tables aside, runs this release's
 * migrations up to the baseline (010), copies every row over keeping ids,
 * statuses, leases, history and idempotency keys, recomputes the group heads,
 * moves the sequences on, drops the 0.1 tables and functions, and records the
 * baseline's migrations in place of 0.1's. The migrations after the baseline
 * are left to the ordinary run. The caller holds the migration lock.
 *
 * Refused while a 0.1 instance is connected (its connections are known by
 * their `application_name`): it would go on heartbeating leases and fail every
 * claim. A lease of a stopped 0.1 instance is kept and honoured: the action
 * runs again only after it expired (the reaper), so never twice at once.
 *
 * @param dataSource a DataSource on the queue's database, holding no transaction.
 * @param migrationsTable the queue's migrations table.
 * @returns whether a conversion ran.
 * @throws Release01InstancesConnectedError when a 0.1 instance is connected; any
 *   SQL error of the conversion (the transaction is rolled back: the 0.1 schema stays as it was).
 */
export async function upgradeRelease01Schema(dataSource: DataSource, migrationsTable: string): Promise<boolean> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    if (!(await holdsRelease01Schema(runner, migrationsTable))) return false;
    const sessions: { pid: number; client: string | null }[] = await runner.query(
      `SELECT pid, host(client_addr) AS client FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ANY($1)
       ORDER BY pid`,
      [RELEASE_0_1_APPLICATION_NAMES],
    );
    if (sessions.length > 0) throw new Release01InstancesConnectedError(sessions);
    await runner.startTransaction('READ COMMITTED');
    try {
      await runner.query(LIFT_DBA_SESSION_LIMITS);
      await runner.query(readSql('upgrade-0.1-aside.sql'));
      const baselineEnd = MIGRATIONS.findIndex((m) => m.name === BASELINE_MIGRATION);
      for (const migration of MIGRATIONS.slice(0, baselineEnd + 1)) {
        await new migration().up(runner);
        await runner.query(`INSERT INTO ${migrationsTable} (timestamp, name) VALUES ($1, $2)`, [timestampOf(migration.name), migration.name]);
      }
      await runner.query(readSql('upgrade-0.1-copy.sql'));
      await runner.query(`DELETE FROM ${migrationsTable} WHERE name = ANY($1)`, [RELEASE_0_1_MIGRATIONS]);
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
    return true;
  } finally {
    await runner.release();
  }
}

/** The SQL of a conversion step in src/database/sql. */
function readSql(file: string): string {
  return readFileSync(join(SQL_MIGRATIONS_DIR, file), 'utf8');
}

/** TypeORM's timestamp of a migration: the 13 digits that end its name. */
function timestampOf(name: string): number {
  const match = /(\d{13})$/.exec(name);
  if (!match) throw new Error(`Migration ${name} has no 13-digit timestamp at the end of its name`);
  return Number(match[1]);
}
