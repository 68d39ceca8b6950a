import { Client } from 'pg';

/**
 * The database administration that the testing helpers, the repository's test
 * support and the benchmark share: not part of the public
 * `ordered-action-queue/testing` entry (its index does not export it).
 */

/** The URL of database `name` on the server of `serverUrl` (same host, port, user; other path). */
export function databaseUrlOn(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Runs `run` with a connection of its own to `url` (for administration: the
 * server's maintenance database), ended afterwards whatever happens.
 * @returns what `run` returns.
 */
export async function withClient<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Drops database `name` on the server of `serverUrl` if it exists, ending any connection still open to it. */
export async function dropDatabaseOn(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`));
}

/**
 * Applies every migration of the queue to the database at `url`, then the
 * current definitions (apply-definitions.ts, under the migration lock), as
 * the service's start-up does (the schema chosen the same way and created
 * when missing, one transaction per migration), and closes its connections
 * before returning.
 *
 * @param poolSize connections the migrating data source may open (default 1).
 * @returns the queue's schema (`action_queue` on a new database).
 * @throws the migration's error (the database is left as the failed transaction left it).
 */
export async function migrateDatabase(url: string, poolSize = 1): Promise<string> {
  // Loaded here: a caller that never migrates (a test cloning a migrated template) never loads TypeORM.
  const { DataSource } = await import('typeorm');
  const { buildDataSourceOptions } = await import('../database/data-source-options');
  const { chooseQueueSchemaAt } = await import('../database/queue-schema-choice');
  const { applyDefinitions } = await import('../database/apply-definitions');
  const { schema } = await chooseQueueSchemaAt(url, undefined, { createMissing: true });
  const dataSource = new DataSource(buildDataSourceOptions(url, poolSize, { schema, pooler: 'none' }));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    await applyDefinitions(dataSource, schema, { lockHeld: false });
  } finally {
    await dataSource.destroy();
  }
  return schema;
}
