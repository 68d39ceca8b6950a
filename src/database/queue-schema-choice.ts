import { Client } from 'pg';
import { DEFAULT_QUEUE_SCHEMA, LEGACY_QUEUE_SCHEMA } from '../data-model/queue-schema-name';
import { QUEUE_APPLICATION_NAME } from '../release/release-version';
import { MIGRATIONS_TABLE } from './data-source-options';

/** The schema the queue uses, and why (logged once at start-up). */
export interface QueueSchemaChoice {
  /** Schema of the queue's tables and functions. */
  schema: string;
  /** Why this one, for the start-up log, e.g. `DATABASE_SCHEMA is set`. */
  reason: string;
}

/**
 * Whether the queue's migrations table exists in schema `$1`: the mark of an
 * install of release 0.3 or earlier, which kept everything in `public`
 * (release 0.1 recorded its migrations in the same table).
 */
export const QUEUE_INSTALLED_IN_SQL = `SELECT to_regclass(format('%I.%I', $1::text, $2::text)) IS NOT NULL AS found`;

/** Runs one statement and returns its rows: a pg `Client`'s or a TypeORM `DataSource`'s query, adapted. */
export type RowsQuery = (sql: string, params: unknown[]) => Promise<unknown[]>;

/**
 * Decides the queue's schema, once per start-up; every part that needs it
 * (the pool's search_path, the migrations, the dedicated connections, the
 * migration CLI, the test support) reads this decision, never the setting.
 *
 * - DATABASE_SCHEMA set: that schema, whatever the database holds.
 * - Unset, and the queue's migrations table exists in `public`: `public`, an
 *   install of release 0.3 or earlier upgrading (its actions stay where its
 *   producers insert them).
 * - Unset otherwise: `action_queue`, a schema of the queue's own, so the
 *   app's own `actions` table in `public` never collides with the queue's.
 *
 * @param configured DATABASE_SCHEMA, or undefined when not set.
 * @param query runs {@link QUEUE_INSTALLED_IN_SQL} on the queue's database.
 * @returns the schema and the reason, e.g. `{ schema: 'public', reason: 'DATABASE_SCHEMA is not set and … ' }`.
 * @throws the query's error (the database cannot be reached).
 */
export async function chooseQueueSchema(configured: string | undefined, query: RowsQuery): Promise<QueueSchemaChoice> {
  if (configured !== undefined) return { schema: configured, reason: 'DATABASE_SCHEMA is set' };
  const [row] = (await query(QUEUE_INSTALLED_IN_SQL, [LEGACY_QUEUE_SCHEMA, MIGRATIONS_TABLE])) as { found: boolean }[];
  if (row?.found) {
    return {
      schema: LEGACY_QUEUE_SCHEMA,
      reason: `DATABASE_SCHEMA is not set and ${LEGACY_QUEUE_SCHEMA}.${MIGRATIONS_TABLE} exists: an install of release 0.3 or earlier keeps its schema`,
    };
  }
  return {
    schema: DEFAULT_QUEUE_SCHEMA,
    reason: `DATABASE_SCHEMA is not set and no queue is installed in ${LEGACY_QUEUE_SCHEMA}: the default for a new install`,
  };
}

/**
 * {@link chooseQueueSchema} on a connection of its own to `url`, closed
 * before returning: for an own pool (whose connections are pinned to the
 * schema as they open, so the choice comes first), the migration CLI
 * (ormconfig.ts) and the test support.
 *
 * @param url PostgreSQL URL of the queue's database.
 * @param configured DATABASE_SCHEMA, or undefined when not set.
 * @param options `createMissing`: also create the chosen schema when it does not
 *   exist, as MigrationsService does before migrating (for callers that run the
 *   migrations themselves: the CLI, the test support). Default false.
 * @throws the connection's or the query's error (within 5 s when the server does not answer).
 */
export async function chooseQueueSchemaAt(url: string, configured: string | undefined, options: { createMissing?: boolean } = {}): Promise<QueueSchemaChoice> {
  if (configured !== undefined && !options.createMissing) return chooseQueueSchema(configured, () => Promise.resolve([]));
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000, application_name: QUEUE_APPLICATION_NAME });
  // A backend that dies while the client waits shows as the query's error, never an unhandled 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const choice = await chooseQueueSchema(configured, async (sql, params) => (await client.query(sql, params)).rows);
    if (options.createMissing) {
      // Only when missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE right on the database even then.
      const { rows } = await client.query<{ exists: boolean }>('SELECT to_regnamespace(quote_ident($1)) IS NOT NULL AS exists', [choice.schema]);
      if (!rows[0].exists) await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(choice.schema)}`);
    }
    return choice;
  } finally {
    await client.end().catch(() => undefined);
  }
}
