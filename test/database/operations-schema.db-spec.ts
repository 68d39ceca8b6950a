import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { SETTING_NAMES } from '../../src/config/settings';
import { DEFINITION_MANIFEST } from '../../src/database/functions/definition-manifest';
import { DEFAULT_QUEUE_SCHEMA } from '../../src/database/queue-schema';
import { withTestDatabase } from '../support';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

describe('schema: migrations are the source of truth', () => {
  // Empty: the migrations under test build the schema.
  const db = withTestDatabase('schema', { migrated: false });

  /** Runs an npm script of package.json with DATABASE_URL pointing at the test database. */
  async function npmRun(script: string): Promise<string> {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTING_NAMES.includes(k)));
    const { stdout } = await run('npm', ['run', '--silent', script], { cwd: root, env: { ...env, DATABASE_URL: db.url }, timeout: 60_000 });
    return stdout;
  }

  async function applied(): Promise<string[]> {
    const ds = new DataSource(buildDataSourceOptions(db.url, 2));
    await ds.initialize();
    try {
      const rows: { name: string }[] = await ds.query('SELECT name FROM typeorm_migrations ORDER BY id');
      return rows.map((r) => r.name);
    } finally {
      await ds.destroy();
    }
  }

  /** Rows of schema_definitions, or null when the table does not exist. */
  async function definitionsRecorded(): Promise<number | null> {
    const ds = new DataSource(buildDataSourceOptions(db.url, 2));
    await ds.initialize();
    try {
      const [{ t }]: { t: string | null }[] = await ds.query(`SELECT to_regclass('${DEFAULT_QUEUE_SCHEMA}.schema_definitions')::text AS t`);
      if (t === null) return null;
      const [{ n }]: { n: number }[] = await ds.query(`SELECT count(*)::int AS n FROM ${t}`);
      return n;
    } finally {
      await ds.destroy();
    }
  }

  it('applies and reverts migrations with the npm scripts (TypeORM CLI, ormconfig.ts)', async () => {
    await npmRun('migration:run');
    const names = MIGRATIONS.map((m) => new m().name ?? m.name);
    expect(await applied()).toEqual(names);
    // Its second step applied the definitions (scripts/apply-definitions.ts).
    expect(await definitionsRecorded()).toBe(DEFINITION_MANIFEST.length);
    await npmRun('migration:revert');
    expect(await applied()).toEqual(names.slice(0, -1));
  });

  it('has entities that match the migrated schema (no drift: migration:generate --check would be empty)', async () => {
    const ds = new DataSource(buildDataSourceOptions(db.url, 2));
    await ds.initialize();
    try {
      // As the service's start-up does before migrating a new install.
      await ds.query(`CREATE SCHEMA IF NOT EXISTS ${DEFAULT_QUEUE_SCHEMA}`);
      await ds.runMigrations({ transaction: 'each' });
      const sql = await ds.driver.createSchemaBuilder().log();
      expect(sql.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
