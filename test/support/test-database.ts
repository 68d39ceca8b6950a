import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseName } from '../../src/testing/test-database';

/** Server the tests use; CI has PostgreSQL on 127.0.0.1:5432 with trust auth. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Environment variable naming this run's migrated template database. The jest
 * globalSetup sets it before any test file runs; test files (in band or in
 * workers started after it) inherit it.
 */
export const TEMPLATE_DATABASE_ENV = 'AQ_TEST_TEMPLATE_DATABASE';

/** A database created for one test file. */
export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** How `createTestDatabase` prepares the database. */
export interface TestDatabaseOptions {
  /**
   * `true` (default): the schema of every migration is in place, cloned from
   * this run's template database. `false`: an empty database, for tests of the
   * migrations themselves or of the migration a service runs at start-up.
   */
  migrated?: boolean;
}

/** The URL of database `name` on the test server. */
export function urlFor(name: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `sql` on the server's maintenance database with a connection of its own. */
async function onServer<T>(run: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Applies every migration of the app to the database at `url`, as the
 * service's start-up does (one transaction per migration), and closes its
 * connection before returning.
 */
export async function migrateDatabase(url: string): Promise<void> {
  // Loaded here: a spec that clones the template never needs TypeORM for it.
  const { DataSource } = await import('typeorm');
  const { buildDataSourceOptions } = await import('../../src/database/data-source-options');
  const dataSource = new DataSource(buildDataSourceOptions(url, 1));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Creates this run's template: a new database named after the jest process
 * (`aq_template_<pid>_<random>`, so runs of other people on the same server
 * never share one), migrated, then closed to connections, since PostgreSQL
 * refuses to clone a database while any session is connected to it.
 *
 * @returns the template's name.
 */
export async function createTemplateDatabase(): Promise<string> {
  const name = `aq_template_${process.pid}_${randomBytes(3).toString('hex')}`;
  await onServer((admin) => admin.query(`CREATE DATABASE ${name}`));
  try {
    await migrateDatabase(urlFor(name));
    await onServer((admin) => admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`));
  } catch (error) {
    await dropDatabase(name);
    throw error;
  }
  return name;
}

/** Drops database `name` if it exists, ending any connection still open to it. */
export async function dropDatabase(name: string): Promise<void> {
  await onServer((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Creates a database with a unique name (`aq_test_<label>_<random>`).
 *
 * Migrated (the default), it is a clone of this run's template database
 * (`CREATE DATABASE … TEMPLATE`), so the app's start-up migration finds
 * nothing to do; without a template (a spec run outside the jest projects) it
 * is migrated here. With `{ migrated: false }` it is empty.
 *
 * Prefer `withTestDatabase` / `withTestApp` (test/support/index.ts), which also drop it.
 *
 * @example
 * const db = await createTestDatabase('ordering');
 * try { … db.url … } finally { await db.drop(); }
 */
export async function createTestDatabase(label: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = testDatabaseName(label);
  const migrated = options.migrated ?? true;
  const template = migrated ? process.env[TEMPLATE_DATABASE_ENV] : undefined;
  await onServer(async (admin) => {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
    if (template) await copyDatabaseSettings(admin, template, name);
  });
  const db: TestDatabase = { name, url: urlFor(name), drop: () => dropDatabase(name) };
  if (migrated && !template) {
    try {
      await migrateDatabase(db.url);
    } catch (error) {
      await db.drop();
      throw error;
    }
  }
  return db;
}

/**
 * A clone does not inherit the per-database settings of its template
 * (`ALTER DATABASE … SET`); a migration that sets one must find it on the
 * clone too, so they are copied.
 */
async function copyDatabaseSettings(admin: Client, from: string, to: string): Promise<void> {
  const { rows } = await admin.query<{ statement: string }>(
    `SELECT format('ALTER DATABASE %I SET %I = %L', $2::text, split_part(s, '=', 1), substr(s, strpos(s, '=') + 1)) AS statement
     FROM pg_db_role_setting r JOIN pg_database d ON d.oid = r.setdatabase, unnest(r.setconfig) AS s
     WHERE d.datname = $1 AND r.setrole = 0`,
    [from, to],
  );
  for (const { statement } of rows) await admin.query(statement);
}
