import { Client, ClientConfig } from 'pg';
import { DEFAULT_QUEUE_SCHEMA, LEGACY_QUEUE_SCHEMA } from '../data-model/queue-schema-name';

// Defined with the data model (the settings validate DATABASE_SCHEMA by them); re-exported for the database code.
export { DEFAULT_QUEUE_SCHEMA, LEGACY_QUEUE_SCHEMA, QUEUE_SCHEMA_PATTERN } from '../data-model/queue-schema-name';

/**
 * Where the queue lives and what stands in front of it: the two facts that
 * decide how its connections are set up.
 */
export interface QueuePlacement {
  /** Schema of the queue's tables and functions (DATABASE_SCHEMA). */
  schema: string;
  /**
   * `transaction`: DATABASE_URL goes through a transaction pooler, where a
   * session setting would land on a server connection other clients get
   * next, so connections are not pinned (DATABASE_POOLER).
   */
  pooler: 'none' | 'transaction';
}

/** The placement of a new install's queue (`action_queue`), connected directly. */
export const DEFAULT_PLACEMENT: QueuePlacement = { schema: DEFAULT_QUEUE_SCHEMA, pooler: 'none' };

/** The placement of a queue installed by release 0.3 or earlier (`public`), connected directly. */
export const LEGACY_PLACEMENT: QueuePlacement = { schema: LEGACY_QUEUE_SCHEMA, pooler: 'none' };

/**
 * Pins a session's search_path to the queue's schema (`$1`), so the service's
 * unqualified statements reach the queue's own tables whatever a DBA set
 * with `ALTER DATABASE … SET search_path` or `ALTER ROLE …`. A plain SET
 * after connecting, not a start-up option: PgBouncer (1.18) refuses the
 * `options` start-up parameter, also in session pooling.
 */
export const PIN_SEARCH_PATH_SQL = `SELECT set_config('search_path', quote_ident($1::text), false)`;

/** Whether connections are pinned to the queue's schema (not behind a transaction pooler). */
export function pinsSearchPath(placement: QueuePlacement): boolean {
  return placement.pooler !== 'transaction';
}

/**
 * Pins a dedicated connection (heartbeat, watchdog) just connected, unless
 * behind a transaction pooler.
 *
 * @param client a connected client.
 * @param placement the queue's schema and pooler.
 */
export async function pinSearchPath(client: Pick<Client, 'query'>, placement: QueuePlacement): Promise<void> {
  if (pinsSearchPath(placement)) await client.query(PIN_SEARCH_PATH_SQL, [placement.schema]);
}

/**
 * The node-postgres `Client` class of the queue's pool (its `Client` option).
 *
 * - With a `schema`, it pins the session to it as part of connecting: the
 *   pool hands out a connection only once pinned, the first one (TypeORM's
 *   start-up queries) included. `null` behind a transaction pooler.
 * - Every client listens for `error` for its whole life. node-postgres
 *   reports a connection that dies while no statement runs as an `error`
 *   event, and pg-pool listens only while the client is idle in the pool: a
 *   client checked out between two statements of a transaction (retention,
 *   bulk operations, the schedule ticker, the health check) would otherwise
 *   crash the process with an unhandled `error` event when its backend is
 *   terminated (a failover, `pg_terminate_backend`). The death then shows as
 *   the next statement's error, and the caller releases the client as broken.
 *
 * @param schema the queue's schema to pin, or null to pin nothing.
 */
export function queuePoolClient(schema: string | null): typeof Client {
  return class QueuePoolClient extends Client {
    constructor(config?: string | ClientConfig) {
      super(config);
      this.on('error', () => undefined);
    }

    override connect(): Promise<Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: Client) => void)): Promise<Client> | void {
      const connected = super.connect().then(async () => {
        if (schema !== null) await this.query(PIN_SEARCH_PATH_SQL, [schema]);
        return this as Client;
      });
      if (!callback) return connected;
      const done = callback as (err: Error | null, c?: Client) => void;
      connected.then(
        (client) => done(null, client),
        (error: Error) => done(error),
      );
    }
  };
}
