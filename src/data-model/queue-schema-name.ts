/** Schema of the queue's tables and functions when DATABASE_SCHEMA is not set. */
export const DEFAULT_QUEUE_SCHEMA = 'public';

/**
 * Names DATABASE_SCHEMA may take: a lower-case unquoted PostgreSQL identifier
 * (at most 63 bytes, PostgreSQL's NAMEDATALEN - 1).
 */
export const QUEUE_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
