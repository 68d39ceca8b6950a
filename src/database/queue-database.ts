import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import type { ActionQueueDatabaseOptions } from './queue-database-config';
import { buildDataSourceOptions } from './data-source-options';
import { DEFAULT_PLACEMENT, QueuePlacement } from './queue-schema';

/** DI token of the {@link QueueDatabase} in use. */
export const QUEUE_DATABASE = Symbol('actions:database');

/** Connection attempts at start-up before giving up (as TypeOrmModule's defaults). */
const CONNECT_ATTEMPTS = 10;
/** Pause between two connection attempts (ms). */
const CONNECT_RETRY_DELAY_MS = 3_000;
/**
 * SQLSTATE classes that no retry cures: 3D (the database does not exist) and
 * 28 (authentication or authorization refused). Start-up fails on the first.
 * Source: PostgreSQL documentation, Appendix A "PostgreSQL Error Codes".
 */
const PERMANENT_CONNECT_ERROR_CLASSES = ['3D', '28'];

/** The database the queue runs on. */
export interface QueueDatabase {
  /** Runs the queue's statements (its pool is the PG_POOL of the hot path). */
  dataSource: DataSource;
  /** URL of the same database, for dedicated connections (LISTEN, heartbeat, watchdog). */
  url: string;
  /** Whether the module opened the DataSource (and so closes it at shutdown). */
  owned: boolean;
}

/**
 * Opens the queue's database: a DataSource of its own for a URL (connecting
 * up to 10 times, 3 s apart, as TypeOrmModule does, but at once giving up on
 * an error no retry cures: unknown database, refused login), or the app's DataSource
 * (initialised when it is not yet, never closed by the queue).
 *
 * @param options the `database` module option.
 * @param poolSize connections of an own pool (DB_POOL_SIZE).
 * @param placement schema and pooler of an own pool (DATABASE_SCHEMA, DATABASE_POOLER):
 *   its connections pin their search_path to the schema unless behind a
 *   transaction pooler (the dedicated ones do the same: pinSearchPath).
 * @throws Error when the app's DataSource is not PostgreSQL, or the last connection attempt fails.
 */
export async function openQueueDatabase(
  options: ActionQueueDatabaseOptions,
  poolSize: number,
  placement: QueuePlacement = DEFAULT_PLACEMENT,
): Promise<QueueDatabase> {
  if ('dataSource' in options) {
    const { dataSource } = options;
    if (dataSource.options.type !== 'postgres') {
      throw new Error(`ActionQueueModule needs a PostgreSQL DataSource; this one is of type "${dataSource.options.type}"`);
    }
    if (!dataSource.isInitialized) await dataSource.initialize();
    return { dataSource, url: options.url ?? databaseUrlOf(dataSource.options), owned: false };
  }
  const logger = new Logger('ActionQueueModule');
  for (let attempt = 1; ; attempt++) {
    const dataSource = new DataSource(buildDataSourceOptions(options.url, poolSize, placement));
    try {
      await dataSource.initialize();
      return { dataSource, url: options.url, owned: true };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const permanent = typeof code === 'string' && PERMANENT_CONNECT_ERROR_CLASSES.includes(code.slice(0, 2));
      if (permanent || attempt >= CONNECT_ATTEMPTS) throw error;
      logger.error(`Unable to connect to the database: ${(error as Error).message}. Retrying (${attempt})...`);
      await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_DELAY_MS));
    }
  }
}

/**
 * A connection URL for a PostgreSQL DataSource's options: its `url`, else one
 * built from host, port, username, password and database (the defaults of
 * node-postgres where one is missing).
 */
export function databaseUrlOf(options: PostgresConnectionOptions): string {
  if (options.url) return options.url;
  const url = new URL('postgresql://localhost');
  url.hostname = options.host ?? 'localhost';
  if (options.port) url.port = String(options.port);
  if (options.username) url.username = encodeURIComponent(options.username);
  if (typeof options.password === 'string') url.password = encodeURIComponent(options.password);
  url.pathname = `/${encodeURIComponent(options.database ?? options.username ?? 'postgres')}`;
  if (options.ssl) url.searchParams.set('sslmode', 'require');
  return url.toString();
}
