import type { DataSource } from 'typeorm';

/**
 * What stands between the queue and PostgreSQL, for either kind of
 * {@link ActionQueueDatabaseOptions} (docs/operations.md, "Behind a pooler").
 * @publicApi
 */
export interface ActionQueuePoolerOptions {
  /**
   * `transaction`: the connections go through a pooler in transaction mode
   * (PgBouncer `pool_mode = transaction`): statements unnamed, no session
   * state, no LISTEN through it. Default `none` (setting DATABASE_POOLER).
   */
  pooler?: 'none' | 'transaction';
  /**
   * A direct (not pooled) URL of the same database for the LISTEN connection
   * only (setting LISTEN_DATABASE_URL). Behind a transaction pooler without
   * it the workers poll every 250 ms instead of waking at once.
   */
  listenUrl?: string;
}

/**
 * The database of the queue: either the app's own TypeORM `DataSource`
 * (PostgreSQL), shared with the queue, or a URL for a pool the module opens
 * and closes itself.
 * @publicApi
 */
export type ActionQueueDatabaseOptions = ActionQueuePoolerOptions &
  (
    | {
        /**
         * An existing PostgreSQL `DataSource` of the app (initialised by the
         * module when it is not yet). Its pool runs the queue's statements; the
         * module never closes it. Enqueueing inside its transactions makes an
         * action atomic with the app's own writes.
         */
        dataSource: DataSource;
        /**
         * URL for the queue's few dedicated connections (LISTEN, heartbeat,
         * watchdog). Default: built from the DataSource's options (`url`, or
         * host, port, username, password, database). Give it when those cannot
         * express the connection (TLS certificates, a socket path).
         */
        url?: string;
      }
    | {
        /** `postgres://` or `postgresql://` URL of the database the module connects to (its own pool, closed at shutdown). */
        url: string;
        /** Connections in the module's pool, 2..500. Default 10. */
        poolSize?: number;
      }
  );

/** What the database module needs of the queue's options (provided by ActionQueueModule). */
export interface QueueDatabaseConfig {
  database: ActionQueueDatabaseOptions;
  /** Apply pending migrations at start-up (else check that none is pending). */
  runMigrations: boolean;
}

/** DI token of the {@link QueueDatabaseConfig}. */
export const QUEUE_DATABASE_CONFIG = Symbol('actions:queue-database-config');
