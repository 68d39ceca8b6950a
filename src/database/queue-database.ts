import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import type { ActionQueueDatabaseOptions } from './queue-database-config';
import { connectCause, connectHint, connectTarget, hostPort } from './connect-failure';
import { buildDataSourceOptions } from './data-source-options';
import { chooseQueueSchema, chooseQueueSchemaAt, QueueSchemaChoice } from './queue-schema-choice';
import { QueuePlacement } from './queue-schema';
import { findTransactionPooler, TransactionPoolerEvidence } from './transaction-pooler-check';

/** DI token of the {@link QueueDatabase} in use. */
export const QUEUE_DATABASE = Symbol('actions:database');

/**
 * How long start-up keeps trying to reach the database (ms) before it stops
 * with an error: a server still starting gets this long. An attempt itself
 * times out after 5 s (connectionTimeoutMillis, data-source-options.ts), so an
 * unreachable database ends start-up within 35 s (docs/operations.md,
 * "Start-up").
 */
export const CONNECT_DEADLINE_MS = 30_000;
/** Pause between two connection attempts (ms). */
export const CONNECT_RETRY_DELAY_MS = 3_000;
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
  /** The queue's schema, chosen once at start-up (queue-schema-choice.ts), and the pooler in front. */
  placement: QueuePlacement;
}

/** What start-up is told of the queue's placement: DATABASE_SCHEMA (undefined when not set) and DATABASE_POOLER. */
export interface WantedPlacement {
  schema: string | undefined;
  pooler: QueuePlacement['pooler'];
}

/**
 * Opens the queue's database: a DataSource of its own for a URL, or the app's
 * DataSource, and decides the queue's schema (chooseQueueSchema: DATABASE_SCHEMA,
 * else `public` for an install of 0.3 or earlier, else `action_queue`), logging
 * which and why. For a URL it logs where it connects (host, port, database,
 * user) at once, then tries every 3 s, logging each failed attempt as it
 * happens, for at most CONNECT_DEADLINE_MS (30 s), and gives up at once on an
 * error no retry cures (unknown database, refused login). Connected with
 * DATABASE_POOLER=none, it checks that no transaction pooler is in front
 * (transaction-pooler-check.ts) and refuses to start when one is. The app's DataSource
 * is initialised when it is not yet, and never closed by the queue.
 *
 * @param options the `database` module option.
 * @param poolSize connections of an own pool (DB_POOL_SIZE).
 * @param wanted DATABASE_SCHEMA (undefined: chosen here) and DATABASE_POOLER: an own
 *   pool's connections pin their search_path to the chosen schema unless behind a
 *   transaction pooler (the dedicated ones do the same: pinSearchPath). The app's
 *   DataSource is not pinned: its search_path must reach the schema (MigrationsService checks).
 * @returns the database, with the chosen placement.
 * @throws UnsetTransactionPoolerError when a transaction pooler is in front and `placement.pooler` is `none`.
 * @throws Error when the app's DataSource is not PostgreSQL, or when the database cannot be reached: the
 *   message names host and port, the cause and what to check (its `cause` is the last attempt's error, its `code` that error's).
 */
export async function openQueueDatabase(
  options: ActionQueueDatabaseOptions,
  poolSize: number,
  wanted: WantedPlacement = { schema: undefined, pooler: 'none' },
): Promise<QueueDatabase> {
  const logger = new Logger('ActionQueueModule');
  if ('dataSource' in options) {
    const { dataSource } = options;
    if (dataSource.options.type !== 'postgres') {
      throw new Error(`ActionQueueModule needs a PostgreSQL DataSource; this one is of type "${dataSource.options.type}"`);
    }
    if (!dataSource.isInitialized) await dataSource.initialize();
    const choice = await chooseQueueSchema(wanted.schema, (sql, params) => dataSource.query(sql, params));
    logSchemaChoice(logger, choice);
    return { dataSource, url: options.url ?? databaseUrlOf(dataSource.options), owned: false, placement: { schema: choice.schema, pooler: wanted.pooler } };
  }
  const target = connectTarget(options.url);
  const where = hostPort(target);
  // At once, before the first attempt: where it connects, so a start-up that hangs says on what.
  logger.log(`Connecting to PostgreSQL at ${where} (database "${target.database}", user "${target.user}")`);
  const started = Date.now();
  let choice: QueueSchemaChoice | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      // Before the pool: its connections are pinned to the schema as they open. Retried like the connection itself.
      choice ??= await chooseQueueSchemaAt(options.url, wanted.schema);
      const placement: QueuePlacement = { schema: choice.schema, pooler: wanted.pooler };
      const dataSource = new DataSource(buildDataSourceOptions(options.url, poolSize, placement));
      await dataSource.initialize();
      if (attempt > 1) logger.log(`Connected to PostgreSQL at ${where} at attempt ${attempt}`);
      if (placement.pooler !== 'transaction') await refuseUnsetTransactionPooler(options.url, where, dataSource, logger);
      logSchemaChoice(logger, choice);
      return { dataSource, url: options.url, owned: true, placement };
    } catch (error) {
      if (error instanceof UnsetTransactionPoolerError) throw error;
      const code = (error as { code?: unknown }).code;
      const permanent = typeof code === 'string' && PERMANENT_CONNECT_ERROR_CLASSES.includes(code.slice(0, 2));
      const elapsedMs = Date.now() - started;
      const cause = connectCause(error);
      if (permanent) {
        throw connectError(`PostgreSQL at ${where} refused the connection: ${cause}. ${capitalise(connectHint(error, target))}`, error);
      }
      if (elapsedMs + CONNECT_RETRY_DELAY_MS >= CONNECT_DEADLINE_MS) {
        throw connectError(
          `Could not connect to PostgreSQL at ${where} (database "${target.database}") after ${attempt} attempts in ` +
            `${Math.round(elapsedMs / 1000)} s: ${cause}. ${capitalise(connectHint(error, target))}`,
          error,
        );
      }
      logger.warn(
        `Could not connect to PostgreSQL at ${where} (attempt ${attempt}, ${Math.round(elapsedMs / 1000)} s): ${cause}. ` +
          `Retrying in ${CONNECT_RETRY_DELAY_MS / 1000} s; start-up stops ${CONNECT_DEADLINE_MS / 1000} s after the first attempt`,
      );
      await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_DELAY_MS));
    }
  }
}

/** Logs the queue's schema and why it was chosen, once per start-up. */
function logSchemaChoice(logger: Logger, choice: QueueSchemaChoice): void {
  logger.log(`The queue's schema is "${choice.schema}": ${choice.reason}`);
}

/** Start-up refused: DATABASE_URL goes through a transaction pooler that DATABASE_POOLER does not declare. */
export class UnsetTransactionPoolerError extends Error {}

/**
 * Refuses to start when DATABASE_URL turns out to go through a transaction
 * pooler while DATABASE_POOLER says `none`: the named statements would fail
 * (`prepared statement "…" already exists` / `does not exist`) for as long as
 * the service runs, and LISTEN would never wake a worker. Refusing, rather
 * than switching by itself, keeps the setting the one truth every part of the
 * service reads (statements, search_path, migration lock, wake-up), and the
 * fix is one variable. A check that cannot run (a timeout) is logged and
 * start-up goes on.
 *
 * @throws UnsetTransactionPoolerError naming DATABASE_POOLER (the DataSource is closed first).
 */
async function refuseUnsetTransactionPooler(url: string, where: string, dataSource: DataSource, logger: Logger): Promise<void> {
  let evidence: TransactionPoolerEvidence | null;
  try {
    evidence = await findTransactionPooler(url);
  } catch (error) {
    logger.warn(`Could not check whether ${where} is a transaction pooler (${connectCause(error)}); going on as DATABASE_POOLER=none`);
    return;
  }
  if (!evidence) return;
  await dataSource.destroy().catch(() => undefined);
  throw new UnsetTransactionPoolerError(
    `DATABASE_URL (${where}) goes through a pooler in transaction mode (${evidence.seen}), but DATABASE_POOLER is not set: ` +
      `set DATABASE_POOLER=transaction, and LISTEN_DATABASE_URL to a direct (not pooled) URL of the same database so workers wake at once. ` +
      `Without it named prepared statements fail ("prepared statement … already exists" / "does not exist") and LISTEN never wakes a worker. ` +
      `See docs/operations.md, "Behind a pooler".`,
  );
}

/** An Error with `message` that keeps the failed attempt's error as its cause and its SQLSTATE or errno code. */
function connectError(message: string, error: unknown): Error {
  const wrapped = new Error(message, { cause: error }) as Error & { code?: unknown };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) wrapped.code = code;
  return wrapped;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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
