import { randomBytes } from 'node:crypto';
import { DEFAULT_QUEUE_SCHEMA } from '../data-model/queue-schema-name';
import { databaseUrlOn, dropDatabaseOn, withClient } from './server-admin';

/**
 * The statement giving a test database (its quoted name) the search_path
 * `action_queue, public`: the queue's schema of a new install first, then
 * `public` (an upgrade test's older release, the app's own tables).
 */
export function testSearchPathSql(quotedName: string): string {
  return `ALTER DATABASE ${quotedName} SET search_path = ${DEFAULT_QUEUE_SCHEMA}, public`;
}

/**
 * A database created for a test, by {@link createTestDatabase}.
 * @publicApi
 */
export interface TestDatabase {
  /** Its name, e.g. `aq_test_billing_1a2b3c4d`. */
  name: string;
  /** Its URL: the server's URL with this database. */
  url: string;
  /** Drops it, ending any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database with a unique name on a PostgreSQL server, for
 * one test file: the queue migrates it when it starts on it (into its own
 * schema, `action_queue`, as on any new install), and `drop()` removes it
 * afterwards, so tests never share state. The database's search_path is
 * `action_queue, public`, so a test's own connections reach the queue's
 * tables by their plain names (`SELECT … FROM actions`); the queue's
 * connections pin their own search_path whatever the database's.
 *
 * @param serverUrl a URL of the server whose user may create databases, e.g.
 *   `postgres://postgres@127.0.0.1:5432/postgres`.
 * @param label part of the name, to tell the databases apart (letters, digits, `_`).
 * @publicApi
 */
export async function createTestDatabase(serverUrl: string, label = 'test'): Promise<TestDatabase> {
  const name = testDatabaseName(label);
  await withClient(serverUrl, async (admin) => {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    await admin.query(testSearchPathSql(admin.escapeIdentifier(name)));
  });
  return { name, url: databaseUrlOn(serverUrl, name), drop: () => dropDatabaseOn(serverUrl, name) };
}

/**
 * A new unique database name for a test, `aq_test_<label>_<8 hex digits>`
 * (the label lower-cased, anything but letters and digits replaced by `_`).
 * @publicApi
 */
export function testDatabaseName(label: string): string {
  return `aq_test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
}
