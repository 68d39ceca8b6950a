import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, testSearchPathSql, TestDatabase, testDatabaseName } from '../../src/testing/test-database';
import { databaseUrlOn, dropDatabaseOn, migrateDatabase, withClient } from '../../src/testing/server-admin';

export type { TestDatabase };

/** Server the tests use; CI has PostgreSQL on 127.0.0.1:5432 with trust auth. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Environment variable naming this run's migrated template database. The jest
 * globalSetup sets it before any test file runs; test files (in band or in
 * workers started after it) inherit it.
 */
export const TEMPLATE_DATABASE_ENV = 'AQ_TEST_TEMPLATE_DATABASE';

/** How `withTestDatabase` / `withTestApp` prepare the block's database. */
export interface TestDatabaseOptions {
  /**
   * `true` (default): the schema of every migration is in place, cloned from
   * this run's template database (`cloneTestDatabase`). `false`: an empty
   * database (`createEmptyTestDatabase`), for tests of the migrations
   * themselves or of the migration a service runs at start-up.
   */
  migrated?: boolean;
}

/** The URL of database `name` on the test server. */
export function urlFor(name: string): string {
  return databaseUrlOn(TEST_SERVER_URL, name);
}

/**
 * Creates this run's template: a new database named after the jest process
 * (`aq_template_<pid>_<random>`, so runs of other people on the same server
 * never share one), with the search_path of createTestDatabase, migrated
 * (into `action_queue`, as a new install), then closed to connections, since PostgreSQL
 * refuses to clone a database while any session is connected to it.
 *
 * @returns the template's name.
 */
export async function createTemplateDatabase(): Promise<string> {
  const name = `aq_template_${process.pid}_${randomBytes(3).toString('hex')}`;
  await withClient(TEST_SERVER_URL, async (admin) => {
    await admin.query(`CREATE DATABASE ${name}`);
    // As createTestDatabase does; clones inherit it (copyDatabaseSettings).
    await admin.query(testSearchPathSql(name));
  });
  try {
    await migrateDatabase(urlFor(name));
    await withClient(TEST_SERVER_URL, (admin) => admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`));
  } catch (error) {
    await dropDatabase(name);
    throw error;
  }
  return name;
}

/** Drops database `name` of the test server if it exists, ending any connection still open to it. */
export function dropDatabase(name: string): Promise<void> {
  return dropDatabaseOn(TEST_SERVER_URL, name);
}

/**
 * Creates a migrated database with a unique name (`aq_test_<label>_<random>`):
 * a clone of this run's template database (`CREATE DATABASE … TEMPLATE`), so
 * the app's start-up migration finds nothing to do; without a template (a spec
 * run outside the jest projects) it is migrated here.
 *
 * Prefer `withTestDatabase` / `withTestApp` (test/support/index.ts), which also drop it.
 *
 * @example
 * const db = await cloneTestDatabase('ordering');
 * try { … db.url … } finally { await db.drop(); }
 */
export async function cloneTestDatabase(label: string): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_DATABASE_ENV];
  if (!template) {
    const db = await createEmptyTestDatabase(label);
    try {
      await migrateDatabase(db.url);
    } catch (error) {
      await db.drop();
      throw error;
    }
    return db;
  }
  const name = testDatabaseName(label);
  await withClient(TEST_SERVER_URL, async (admin) => {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await copyDatabaseSettings(admin, template, name);
    // Again, not copied: a list setting copied as one literal would read as one schema named "action_queue, public".
    await admin.query(testSearchPathSql(name));
  });
  return { name, url: urlFor(name), drop: () => dropDatabase(name) };
}

/**
 * Creates an empty database with a unique name (`aq_test_<label>_<random>`) on
 * the test server: the public `createTestDatabase` of
 * `ordered-action-queue/testing` on `TEST_SERVER_URL`. For the migrations' own
 * tests and the services that migrate at start-up.
 *
 * Prefer `withTestDatabase(label, { migrated: false })`, which also drops it.
 */
export function createEmptyTestDatabase(label: string): Promise<TestDatabase> {
  return createTestDatabase(TEST_SERVER_URL, label);
}

/** The database of `withTestDatabase`: a clone of the template, or empty with `{ migrated: false }`. */
export function testDatabaseFor(label: string, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  return options.migrated === false ? createEmptyTestDatabase(label) : cloneTestDatabase(label);
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
