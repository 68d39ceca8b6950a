/**
 * Schema of the queue's tables and functions on a new install when
 * DATABASE_SCHEMA is not set: a schema of its own, so that an app sharing the
 * database may have tables named `actions` or `action_attempts` of its own
 * (as pg-boss keeps to `pgboss` and graphile-worker to `graphile_worker`).
 */
export const DEFAULT_QUEUE_SCHEMA = 'action_queue';

/**
 * Schema of the installs of release 0.3 and earlier, which had no schema of
 * their own: kept when found there (src/database/queue-schema-choice.ts).
 */
export const LEGACY_QUEUE_SCHEMA = 'public';

/**
 * Names DATABASE_SCHEMA may take: a lower-case unquoted PostgreSQL identifier
 * (at most 63 bytes, PostgreSQL's NAMEDATALEN - 1).
 */
export const QUEUE_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
