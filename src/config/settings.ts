import { plainToInstance, Transform } from 'class-transformer';
import {
  getMetadataStorage,
  IsBoolean,
  ValidationError,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

import { QUEUE_SCHEMA_PATTERN } from '../data-model/queue-schema-name';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};
const toInteger = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value);

/**
 * The settings the queue module reads (its SETTINGS provider): from the
 * environment for the service ({@link loadSettings}, which reads
 * {@link ServiceSettings}, this plus the service's extras), from its options
 * for an embedded module ({@link loadQueueSettings}); validated once either way
 * (class-validator).
 *
 * Units are in the names: `_MS` is milliseconds, `_DAYS` days, `_BYTES` bytes.
 */
export class QueueSettings {
  /**
   * Schema of the queue's tables and functions (created by the migrations
   * when missing). Unset: chosen once at start-up, `action_queue`
   * (DEFAULT_QUEUE_SCHEMA) on a new install, `public` where an install of
   * release 0.3 or earlier already has the queue (src/database/queue-schema-choice.ts).
   * The service's connections pin their search_path to it; behind a
   * transaction pooler the pooler's server connections must have it
   * (docs/operations.md, "The queue's schema").
   */
  @IsOptional()
  @Matches(QUEUE_SCHEMA_PATTERN, {
    message: 'DATABASE_SCHEMA must be a lower-case PostgreSQL identifier (a-z, 0-9, _; not starting with a digit; at most 63 characters)',
  })
  DATABASE_SCHEMA?: string;
  /**
   * What sits between the service and PostgreSQL on DATABASE_URL. `none`
   * (default): a direct connection (or a pooler in session mode). `transaction`:
   * a pooler in transaction mode (PgBouncer `pool_mode = transaction`, and
   * the like), where consecutive transactions of one client may run on
   * different server connections: no session state (LISTEN, session
   * settings, session advisory locks) is used on DATABASE_URL then. See
   * docs/operations.md, "Behind a pooler".
   */
  @IsIn(['none', 'transaction'])
  DATABASE_POOLER: 'none' | 'transaction' = 'none';
  /**
   * `plain` (default): the queue on one PostgreSQL server. `citus`:
   * DATABASE_URL is a Citus coordinator and DATABASE_SCHEMA one of the
   * queue's partitions, a distributed schema placed whole on one node
   * (docs/scale-out.md). Start-up refuses `citus` on a server without the
   * citus extension, and `plain` on one with it.
   */
  @IsIn(['plain', 'citus'])
  QUEUE_MODE: 'plain' | 'citus' = 'plain';
  /**
   * With QUEUE_MODE=citus: how many partitions the queue has (schemas
   * `<prefix>_p0` .. `<prefix>_p<N-1>`); a group's partition is
   * aq_partition_of(group, N) (docs/scale-out.md). Fixed for the queue's life:
   * growing moves partitions between nodes, it never changes N.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1024)
  CITUS_PARTITIONS = 8;
  /**
   * A direct (not pooled) PostgreSQL URL of the same database, used only for
   * the LISTEN connection that wakes the workers. Unset: DATABASE_URL, unless
   * DATABASE_POOLER=transaction (then the workers poll every
   * POOLED_POLL_INTERVAL_MS instead, with a warning at start-up).
   */
  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'LISTEN_DATABASE_URL must start with postgres:// or postgresql://' })
  LISTEN_DATABASE_URL?: string;
  /** Whether this instance claims and runs actions. false: API only. */
  @Transform(toBoolean)
  @IsBoolean()
  WORKER_ENABLED = true;
  /** Whether this instance serves the REST API. false: worker only (health and metrics stay). */
  @Transform(toBoolean)
  @IsBoolean()
  API_ENABLED = true;
  /** Actions one instance runs at once. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKER_CONCURRENCY = 16;
  /**
   * Share of WORKER_CONCURRENCY (per cent) that handlers which ignored their
   * abort signal (timeout, lost lease) may hold before the instance reports
   * lost capacity: from max(1, ceil(WORKER_CONCURRENCY × this / 100)) stuck
   * slots on, `/health/ready` and `/health` answer 503 (the orchestrator stops
   * routing to it and restarts it, which frees the slots). An action holds at
   * most one slot however many of its attempts are stuck. 100: only when every
   * slot is stuck.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  STUCK_SLOTS_MAX_PERCENT = 25;
  /** Safety-net poll interval (ms); LISTEN/NOTIFY wakes workers sooner. */
  @Transform(toInteger)
  @IsInt()
  @Min(10)
  @Max(600_000)
  WORKER_POLL_INTERVAL_MS = 1000;
  /**
   * Lease length (ms). Heartbeats extend it every third of it; a worker that
   * cannot renew a lease aborts its handler at least LEASE_MS/6 before it
   * could expire elsewhere (src/queue/instance/lease-timing.ts).
   */
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(86_400_000)
  LEASE_MS = 30_000;
  /** How often expired leases are reaped (ms). */
  @Transform(toInteger)
  @IsInt()
  @Min(50)
  @Max(3_600_000)
  REAPER_INTERVAL_MS = 5_000;
  /**
   * Retry backoff base (ms) for handlers whose options give no `backoffBaseMs`:
   * the delay after failed attempt n is uniform in [0, min(cap, base * 2^(n-1))].
   */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  RETRY_BACKOFF_BASE_MS = 1_000;
  /** Retry backoff cap (ms) for handlers whose options give no `backoffCapMs`. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  RETRY_BACKOFF_CAP_MS = 60_000;
  /** maxAttempts of an action enqueued through the API without one. */
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  DEFAULT_MAX_ATTEMPTS = 5;
  /** On SIGTERM, how long running handlers may finish before they are aborted (ms). */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;
  /** Days finished actions and their trace are kept; 0 keeps everything. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(36_500)
  RETENTION_DAYS = 0;
  /**
   * Days an idempotency key is remembered after the first enqueue that used it:
   * retention never deletes an action whose key is younger than this, so the
   * unique index keeps refusing a repeat for at least this long. 0: as long as
   * the action is kept (RETENTION_DAYS alone decides).
   */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(36_500)
  IDEMPOTENCY_WINDOW_DAYS = 7;
  /**
   * Largest per-group state a handler may store with `ctx.groupState.set`
   * (bytes of its JSON text). A larger one fails the attempt (charged), nothing written.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(2)
  @Max(16_777_216)
  GROUP_STATE_MAX_BYTES = 65_536;
  /**
   * Days a group's state is kept after it last changed once the group has no
   * pending or running action; retention then deletes it. 0: kept until an
   * operator deletes it.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(36_500)
  GROUP_STATE_RETENTION_DAYS = 30;
  /** How often the retention job runs (ms), when RETENTION_DAYS > 0. */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  @Max(86_400_000)
  RETENTION_INTERVAL_MS = 3_600_000;
  /**
   * When set, every route but /health requires `Authorization: Bearer <key>` or `x-api-key`.
   * Set but empty is a start-up error, never "off" (loadSettings). Printable
   * ASCII without leading or trailing spaces: what a request header carries
   * intact (a header is read as Latin-1 bytes and trimmed), so a key clients
   * could never send is refused at start-up instead of answering 401 to all.
   */
  @IsOptional()
  @IsString()
  @Matches(/^[\x21-\x7e][\x20-\x7e]{14,}[\x21-\x7e]$/, {
    message: 'API_KEY must be at least 16 characters of printable ASCII, without leading or trailing spaces (what an HTTP header carries intact)',
  })
  API_KEY?: string;
  /**
   * Largest response (bytes of payloads, results and errors) that one read
   * builds: a list page stops before it or lists an item that can never fit
   * without its content (fitToBudget); one action over it is 413 (`content=false` reads it without).
   */
  @Transform(toInteger)
  @IsInt()
  @Min(65_536)
  @Max(256 * 1024 * 1024)
  MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
  /** Connections in this instance's pool. */
  @Transform(toInteger)
  @IsInt()
  @Min(2)
  @Max(500)
  DB_POOL_SIZE = 10;
  /** Largest accepted payload of one action, serialized (bytes). */
  @Transform(toInteger)
  @IsInt()
  @Min(16)
  @Max(10 * 1024 * 1024)
  MAX_PAYLOAD_BYTES = 64 * 1024;
  /**
   * Whether `/metrics` also serves every `action_queue_*` metric under its
   * name of release 0.3 and earlier (`actions_*`, src/metrics/metric-names.ts),
   * for dashboards and alerts still on them. Kept for release 0.4 only.
   */
  @Transform(toBoolean)
  @IsBoolean()
  METRICS_LEGACY_NAMES = false;
  /**
   * How many tenants `GET /stats` lists by name in `tenants.top`, those with
   * the largest backlog; the others are summed in `tenants.others`
   * (docs/tenants.md, "Watching tenants").
   */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(1000)
  STATS_TENANTS_TOP = 10;
  /**
   * How many tenants get their own `tenant` label on the `/metrics` tenant
   * gauges, those with the largest backlog; the rest are summed under
   * `tenant="_other"`, so that the number of series stays bounded whatever
   * the number of tenants. 0: only `_other`.
   */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(1000)
  METRICS_TENANTS_TOP = 10;
  /**
   * Errors that nothing caught (unhandled rejections, uncaught exceptions):
   * `fail-attempt` charges the handler that left it (its attempt ends as an
   * error) and keeps running; `exit` also releases the other running actions
   * and exits with code 1; `off` installs no process-level handler (Node's
   * default: the process exits). An error no handler can be blamed for always
   * releases the running actions and exits.
   */
  @IsIn(['fail-attempt', 'exit', 'off'])
  STRAY_ERROR_POLICY: 'fail-attempt' | 'exit' | 'off' = 'fail-attempt';
  /**
   * Whether a watchdog thread stops this instance (after releasing its
   * actions) when its event loop stalls so long that a lease could expire
   * elsewhere while a handler still runs.
   */
  @Transform(toBoolean)
  @IsBoolean()
  WATCHDOG_ENABLED = true;
  /** Identifies this instance in leases and the trace. Default: host-pid-random. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  WORKER_ID?: string;
}

/**
 * The settings of the service around the queue (the service starter,
 * `ormconfig.ts`): every {@link QueueSettings} plus what only the service
 * reads (its database URL or embedded PostgreSQL, its HTTP server, security
 * and logging, the demo handlers). Read from the environment and validated
 * once by {@link loadSettings}.
 */
export class ServiceSettings extends QueueSettings {
  /** PostgreSQL URL. Unset: an embedded PostgreSQL under EMBEDDED_PG_DIR. */
  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must start with postgres:// or postgresql://' })
  DATABASE_URL?: string;
  /** Data folder of the embedded PostgreSQL (only without DATABASE_URL). */
  @IsString()
  @MinLength(1)
  EMBEDDED_PG_DIR = '.data/postgres';
  /** Port of the embedded PostgreSQL; not 5432, so it never clashes with a system server. */
  @Transform(toInteger)
  @IsInt()
  @Min(1024)
  @Max(65535)
  EMBEDDED_PG_PORT = 54329;
  /** HTTP port. */
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;
  /** Address the HTTP server binds to. Default loopback only; containers set 0.0.0.0. */
  @IsString()
  @Matches(/^[0-9a-fA-F.:]+$|^localhost$/, { message: 'HOST must be an IP address (e.g. 127.0.0.1, 0.0.0.0, ::) or localhost' })
  HOST = '127.0.0.1';
  /**
   * Whether this instance serves the operators' dashboard at /ui. Only with
   * API_ENABLED (a worker-only instance never serves it); the dashboard reads
   * the REST API with the same API key.
   */
  @Transform(toBoolean)
  @IsBoolean()
  DASHBOARD_ENABLED = true;
  /** Comma-separated origins allowed by CORS (e.g. `https://a.example,https://b.example`). Unset: CORS off. */
  @IsOptional()
  @IsString()
  @Matches(/^(\*|https?:\/\/[^\s,]+(\s*,\s*https?:\/\/[^\s,]+)*)$/, {
    message: 'CORS_ORIGINS must be * or a comma-separated list of http(s) origins',
  })
  CORS_ORIGINS?: string;
  /**
   * Host names (the `Host` header without its port) this service answers, comma
   * separated, or `*` for any. Unset: without API_KEY, the loopback names
   * (localhost, *.localhost, 127.0.0.1, ::1), HOST and the address the request
   * arrived on; with API_KEY, any (the key protects). Refuses DNS rebinding (403).
   */
  @IsOptional()
  @IsString()
  @Matches(/^(\*|[A-Za-z0-9.:[\]_-]+(\s*,\s*[A-Za-z0-9.:[\]_-]+)*)$/, {
    message: 'ALLOWED_HOSTS must be * or a comma-separated list of host names or IP addresses (no ports)',
  })
  ALLOWED_HOSTS?: string;
  /**
   * Whether the network in front of HOST is trusted: only then may the
   * service listen on a non-loopback address without API_KEY.
   */
  @Transform(toBoolean)
  @IsBoolean()
  TRUSTED_NETWORK = false;
  /**
   * Longest time (ms) a client may take to send a request's headers and body;
   * a slower one gets 408 and its connection is closed (slow-body clients hold sockets).
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  REQUEST_TIMEOUT_MS = 30_000;
  /** Whether the demo handlers instance.create/update/delete are registered. */
  @Transform(toBoolean)
  @IsBoolean()
  DEMO_HANDLERS = true;
  /**
   * Largest accepted request body (bytes); beyond it 413, from Content-Length
   * before any parsing. 1 MiB: JSON.parse of the worst shape (tens of
   * thousands of small keys) takes about 22 ms at 1 MiB on the project's
   * 2-core machine against 172 ms at 5 MiB, and parsing cannot yield to the
   * event loop (docs/operations.md, "Security").
   */
  @Transform(toInteger)
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  BODY_LIMIT_BYTES = 1024 * 1024;
  /** Log level. */
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';
}

/** Names of the settings of `target` (optional ones included, inherited ones too), from its validation decorators. */
const settingNamesOf = (target: typeof QueueSettings): string[] => [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(target, '', true, false)
      .map((m) => m.propertyName),
  ),
];

/** Names of all settings (the service's, the queue's included), for documentation and deployment checks. */
export const SETTING_NAMES: string[] = settingNamesOf(ServiceSettings);

/** Names of the queue's settings (what {@link loadQueueSettings} reads). */
export const QUEUE_SETTING_NAMES: string[] = settingNamesOf(QueueSettings);

/** Settings whose value is never echoed in an error (secrets, or URLs that may hold a password). */
const SECRET_SETTINGS = new Set(['API_KEY', 'DATABASE_URL', 'LISTEN_DATABASE_URL']);

/**
 * What one setting must be, in words, from its validation decorators, e.g.
 * "WORKER_CONCURRENCY must be an integer from 1 to 1000".
 */
export function describeAllowedValues(name: string): string {
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(ServiceSettings, '', true, false)
    .filter((m) => m.propertyName === name);
  const arg = (n: string): unknown => rules.find((r) => r.name === n)?.constraints?.[0];
  const has = (n: string): boolean => rules.some((r) => r.name === n);
  if (has('isBoolean')) return `${name} must be true or false`;
  if (has('isIn')) return `${name} must be one of ${(arg('isIn') as string[]).join(', ')}`;
  if (has('isInt')) return `${name} must be an integer from ${String(arg('min'))} to ${String(arg('max'))}`;
  const custom = rules.find((r) => typeof r.message === 'string')?.message;
  if (typeof custom === 'string') return custom;
  if (has('minLength')) return `${name} must be a string of at least ${String(arg('minLength'))} characters`;
  return `${name} must be a string`;
}

/**
 * Reads and validates the service's settings from an environment.
 *
 * @param env the environment (usually `process.env`); empty strings count as unset.
 * @returns the typed settings, defaults filled in.
 * @throws Error with one line per invalid setting, naming it and the allowed values
 *   (RETRY_BACKOFF_CAP_MS below RETRY_BACKOFF_BASE_MS names both).
 */
export function loadSettings(env: Record<string, unknown> = process.env): ServiceSettings {
  return validated(ServiceSettings, SETTING_NAMES, env);
}

/**
 * Reads and validates the queue's settings (no service extras: names of
 * {@link ServiceSettings} only are ignored), by the same rules as
 * {@link loadSettings}.
 *
 * @param values settings by their environment names; empty strings count as unset.
 * @returns the typed settings, defaults filled in.
 * @throws Error with one line per invalid setting, as {@link loadSettings}.
 */
export function loadQueueSettings(values: Record<string, unknown>): QueueSettings {
  return validated(QueueSettings, QUEUE_SETTING_NAMES, values);
}

/** An instance of `target` from the `names` of `env`, defaults filled in; throws naming every invalid setting. */
function validated<T extends QueueSettings>(target: new () => T, names: string[], env: Record<string, unknown>): T {
  const known = new Set(names);
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    if (known.has(key) && value !== undefined && value !== '') picked[key] = value;
  }
  const settings = plainToInstance(target, picked, { exposeDefaultValues: true });
  let errors = validateSync(settings, { whitelist: false });
  // Empty means unset for every other setting; for the key it would silently mean "no authentication".
  if (typeof env.API_KEY === 'string' && env.API_KEY.trim() === '') {
    errors = [...errors.filter((e) => e.property !== 'API_KEY'), Object.assign(new ValidationError(), { property: 'API_KEY', value: env.API_KEY })];
  }
  const lines = errors.map((e) => {
    const shown = SECRET_SETTINGS.has(e.property) ? '' : `=${JSON.stringify(e.value)}`;
    if (e.property === 'API_KEY' && e.constraints === undefined) {
      return 'Invalid setting API_KEY: it is set but empty; set a key of at least 16 characters, or remove API_KEY to run without one';
    }
    return `Invalid setting ${e.property}${shown}: ${describeAllowedValues(e.property)}`;
  });
  // Settings that are valid alone but not together (checked once each is valid).
  const invalid = new Set(errors.map((e) => e.property));
  if (!invalid.has('RETRY_BACKOFF_BASE_MS') && !invalid.has('RETRY_BACKOFF_CAP_MS') && settings.RETRY_BACKOFF_CAP_MS < settings.RETRY_BACKOFF_BASE_MS) {
    // A cap below the base would silently make every delay the cap.
    lines.push(
      `Invalid setting RETRY_BACKOFF_CAP_MS=${settings.RETRY_BACKOFF_CAP_MS}: must be at least RETRY_BACKOFF_BASE_MS (${settings.RETRY_BACKOFF_BASE_MS})`,
    );
  }
  if (lines.length > 0) throw new Error(lines.join('\n'));
  return settings;
}
