import type { DynamicModule, FactoryProvider } from '@nestjs/common';
import type { QueueSettings } from '../config/settings';
import type { ActionQueueDatabaseOptions } from '../database/queue-database-config';

/**
 * Which REST routes the module mounts, and under which path. They carry their
 * own validation (400 naming the field), a 503 for an unreachable database and
 * the JSON body checks (415/400); the app's body parser, global pipes, guards
 * and filters still apply. The API key of the service starter (`API_KEY`) is
 * not installed: protect the routes with the app's own guards.
 * @publicApi
 */
export interface ActionQueueRoutesOptions {
  /** Path prefix, e.g. `'queue'` serves `/queue/actions`. Default none (`/actions`). */
  prefix?: string;
  /** `/actions` (enqueue, batch, list, get, cancel, retry), `/groups/:lockId` and `/stats`. Default true. */
  actions?: boolean;
  /** `/health` (liveness: database ping, worker loop) and `/health/ready` (migrations applied). Default false. */
  health?: boolean;
  /** `/metrics` in Prometheus text format (the queue's own registry). Default false. */
  metrics?: boolean;
  /**
   * The operators' dashboard at `/ui` (under the prefix: `/queue/ui`), as the
   * service serves it; needs `actions`, whose routes it reads. Default false.
   */
  dashboard?: boolean;
  /** The OpenAPI page of these routes at `/docs` (under the prefix: `/queue/docs`, the document at `/queue/docs-json`). Default false. */
  docs?: boolean;
}

/**
 * Options of {@link ActionQueueModule}. Everything but `database` is optional;
 * times are in milliseconds. Invalid values stop start-up with an error
 * naming the option.
 * @publicApi
 */
export interface ActionQueueModuleOptions {
  /** The database: the app's `DataSource`, or a URL. */
  database: ActionQueueDatabaseOptions;

  /** The worker that claims and runs actions in this process. */
  worker?: {
    /** Claim and run actions here. false: enqueue (and routes) only. Default true. */
    enabled?: boolean;
    /** Actions run at once, 1..1000. Default 16. */
    concurrency?: number;
    /** Safety-net poll (ms), 10..600 000; LISTEN/NOTIFY wakes the worker sooner. Default 1 000. */
    pollIntervalMs?: number;
    /** On shutdown, how long running handlers may finish before they are aborted and released (ms). Default 10 000. */
    shutdownTimeoutMs?: number;
    /** Identifies this process in leases and the trace, 1..200 characters. Default `<host>-<pid>-<random>`. */
    id?: string;
    /**
     * Share of `concurrency` (per cent, 1..100) that handlers ignoring their abort
     * signal may hold before the health routes answer 503 (one slot per action). Default 25.
     */
    stuckSlotsMaxPercent?: number;
  };

  /** Leases: how long a claimed action stays with this worker without a heartbeat. */
  lease?: {
    /** Lease length (ms), 100..86 400 000; heartbeats renew it every third. Default 30 000. */
    durationMs?: number;
    /** How often expired leases of dead workers are reaped (ms), 50..3 600 000. Default 5 000. */
    reaperIntervalMs?: number;
  };

  /** Retries of failed attempts (handler options override the backoff per type). */
  retry?: {
    /** `maxAttempts` of an action enqueued without one, 1..100. Default 5. */
    maxAttempts?: number;
    /** Backoff base (ms): after failed attempt n the delay is uniform in [0, min(cap, base * 2^(n-1))]. Default 1 000. */
    backoffBaseMs?: number;
    /** Backoff cap (ms). Default 60 000. */
    backoffCapMs?: number;
  };

  /** Purging finished actions (run by worker processes). */
  retention?: {
    /** Days finished actions and their trace are kept; 0 keeps everything. Default 0. */
    days?: number;
    /** How often the purge runs (ms), 1 000..86 400 000. Default 3 600 000. */
    intervalMs?: number;
    /** Days an `idempotencyKey` is remembered after its first enqueue, whatever `days` says. Default 7. */
    idempotencyWindowDays?: number;
  };

  /** Largest payload of one action, serialised (bytes), 16..10 485 760; larger ones are refused. Default 65 536. */
  maxPayloadBytes?: number;

  /**
   * Apply the queue's migrations at start-up (serialised across processes by
   * an advisory lock). false: they must already be applied, else start-up
   * fails naming the missing ones. Default true.
   */
  runMigrations?: boolean;

  /**
   * Process-wide guards for the worker. Both act on the whole process, so they
   * are off unless turned on here (the service starter turns them on).
   */
  containment?: {
    /**
     * Install `process.on('unhandledRejection' | 'uncaughtException')`:
     * `'fail-attempt'` charges the handler that left the error and keeps
     * running; `'exit'` also releases the other running actions and exits
     * with code 1; `'off'` installs nothing. Default `'off'`.
     */
    strayErrorPolicy?: 'fail-attempt' | 'exit' | 'off';
    /**
     * Start a watchdog thread that releases this worker's actions and kills
     * the process when its event loop stalls so long that a lease could
     * expire elsewhere. Default false.
     */
    watchdog?: boolean;
  };

  /**
   * Settings by their environment names (see {@link QueueSettings}), for the rare
   * ones without an option above; the service starter passes all of them.
   * The options above take precedence.
   */
  settings?: Partial<QueueSettings>;
}

/**
 * Options of {@link ActionQueueModule.forRoot}: the module options plus the
 * routes to mount.
 * @publicApi
 */
export interface ActionQueueModuleRootOptions extends ActionQueueModuleOptions {
  /** REST routes to mount: true for the action routes, or which ones and where. Default false (none). */
  routes?: boolean | ActionQueueRoutesOptions;
}

/**
 * Options of {@link ActionQueueModule.forRootAsync}, in the shape of
 * `TypeOrmModule.forRootAsync`.
 * @publicApi
 */
export interface ActionQueueModuleAsyncOptions {
  /** Modules that export what `inject` names (e.g. `ConfigModule`). */
  imports?: DynamicModule['imports'];
  /** Providers passed to `useFactory`, in order (e.g. `ConfigService`, `DataSource`). */
  inject?: FactoryProvider['inject'];
  /** Builds the options; may be async. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the injected providers' types are the caller's
  useFactory: (...args: any[]) => ActionQueueModuleOptions | Promise<ActionQueueModuleOptions>;
  /**
   * REST routes to mount. Given here, not by the factory: Nest decides the
   * controllers and their paths before any provider runs. Default false.
   */
  routes?: boolean | ActionQueueRoutesOptions;
}
