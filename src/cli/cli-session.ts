import { DataSource } from 'typeorm';
import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { loadSettings, ServiceSettings } from '../config/settings';
import { connectCause, connectHint, connectTarget, hostPort } from '../database/connect-failure';
import { buildDataSourceOptions } from '../database/data-source-options';
import { MigrationsService, QueueSchemaState } from '../database/migrations.service';
import { QueueDatabase } from '../database/queue-database';
import { chooseQueueSchemaAt } from '../database/queue-schema-choice';
import { QueuePlacement } from '../database/queue-schema';
import { QUEUE_APPLICATION_NAME, RELEASE_VERSION } from '../release/release-version';
import { CliFailure } from './cli-failure';
import { CLI_EXIT } from './exit-codes';

/**
 * Connections of the command line's pool: MigrationsService holds its lock
 * on one while the migrations run on another.
 */
const CLI_POOL_SIZE = 2;

/** The `application_name` of the command line's connections: `ordered-action-queue/<version>:cli`. */
export const CLI_APPLICATION_NAME = `${QUEUE_APPLICATION_NAME}:cli`;

/** One command's connection to the queue's database. */
export interface CliSession {
  /** The validated settings (DATABASE_URL set). */
  settings: ServiceSettings;
  /** The queue's database: its own pool, pinned to the queue's schema as the service's is. */
  database: QueueDatabase;
  /** The service's migration runner on that database (`migrate`, `schema-version`, the schema check). */
  migrations: MigrationsService;
  /** node-postgres' pool behind the DataSource, for the services that run on it (bulk operations). */
  pool: Pool;
  /** Closes the pool. */
  close(): Promise<void>;
}

/**
 * The settings of the command line: the service's own (loadSettings), with
 * DATABASE_URL required (the CLI never starts an embedded PostgreSQL).
 *
 * @param env the environment (process.env).
 * @throws CliFailure (exit 2) naming each invalid setting, or DATABASE_URL when it is not set.
 */
export function loadCliSettings(env: Record<string, unknown>): ServiceSettings & { DATABASE_URL: string } {
  let settings: ServiceSettings;
  try {
    settings = loadSettings(env);
  } catch (error) {
    throw new CliFailure(CLI_EXIT.usage, `Invalid settings: ${(error as Error).message}`, { usageLine: false });
  }
  if (!settings.DATABASE_URL) {
    throw new CliFailure(
      CLI_EXIT.usage,
      "DATABASE_URL is not set: the command line needs the URL of the queue's database, e.g. DATABASE_URL=postgres://user@host:5432/db " +
        '(the same settings as the service: DATABASE_SCHEMA, DATABASE_POOLER)',
      { usageLine: false },
    );
  }
  return settings as ServiceSettings & { DATABASE_URL: string };
}

/**
 * Connects once to the queue's database, with the service's settings and its
 * choice of schema (queue-schema-choice.ts: DATABASE_SCHEMA, else `public`
 * for an install of 0.3 or earlier, else `action_queue`). Unlike the
 * service's start-up it does not retry: a connection attempt times out after
 * 5 s (data-source-options.ts), so a command against an unreachable database
 * ends within about 10 s.
 *
 * @param env the environment (process.env).
 * @param options `requireRunnable`: refuse (exit 4) unless every migration of
 *   this release is applied and none of a later release is (every command
 *   that reads or changes the queue; not `migrate` or `schema-version`).
 * @throws CliFailure: exit 2 for settings, 3 when the database cannot be reached
 *   or refuses the login, 4 when the schema does not fit (with `requireRunnable`).
 */
export async function openCliSession(env: Record<string, unknown>, options: { requireRunnable: boolean }): Promise<CliSession> {
  const settings = loadCliSettings(env);
  const url = settings.DATABASE_URL;
  let dataSource: DataSource | null = null;
  let placement: QueuePlacement;
  try {
    const { schema } = await chooseQueueSchemaAt(url, settings.DATABASE_SCHEMA);
    placement = { schema, pooler: settings.DATABASE_POOLER };
    const dataSourceOptions = buildDataSourceOptions(url, CLI_POOL_SIZE, placement);
    // pg_stat_activity tells the command line's connections from an instance's (the release prefix stays:
    // a later release's start-up still waits for them, as for any connection of this release).
    dataSource = new DataSource({ ...dataSourceOptions, extra: { ...dataSourceOptions.extra, application_name: CLI_APPLICATION_NAME } });
    await dataSource.initialize();
  } catch (error) {
    if (dataSource?.isInitialized) await dataSource.destroy().catch(() => undefined);
    const target = connectTarget(url);
    throw new CliFailure(
      CLI_EXIT.database,
      `Could not connect to PostgreSQL at ${hostPort(target)} (database "${target.database}", user "${target.user}"): ${connectCause(error)}; ` +
        connectHint(error, target),
      { cause: error },
    );
  }
  const ds = dataSource;
  const database: QueueDatabase = { dataSource: ds, url, owned: true, placement };
  const migrations = new MigrationsService(database, { database: { url }, runMigrations: true }, settings);
  const session: CliSession = {
    settings,
    database,
    migrations,
    pool: (ds.driver as PostgresDriver).master as Pool,
    close: () => ds.destroy().catch(() => undefined),
  };
  if (options.requireRunnable) {
    try {
      refuseUnrunnableSchema(await migrations.schemaState());
    } catch (error) {
      await session.close();
      throw error;
    }
  }
  return session;
}

/**
 * Throws unless this release can run on the schema: every migration of it
 * applied, none of a later release.
 * @throws CliFailure (exit 4) saying which and what to do.
 */
export function refuseUnrunnableSchema(state: QueueSchemaState): void {
  if (state.newer.length > 0) {
    throw new CliFailure(
      CLI_EXIT.schema,
      `The queue's schema "${state.schema}" is newer than release ${RELEASE_VERSION}: a later release applied ${state.newer.join(', ')}; use that release's command line`,
    );
  }
  if (state.pending.length > 0) {
    const what = state.applied.length === 0 ? 'is not migrated' : `lacks ${state.pending.length} of this release's ${state.known.length} migrations`;
    throw new CliFailure(CLI_EXIT.schema, `The queue's schema "${state.schema}" ${what}: run "ordered-action-queue migrate" (or start the service) first`);
  }
}
