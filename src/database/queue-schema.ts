/** Schema of the queue's tables and functions when DATABASE_SCHEMA is not set. */
export const DEFAULT_QUEUE_SCHEMA = 'public';

/**
 * Names DATABASE_SCHEMA may take: a lower-case unquoted PostgreSQL identifier
 * (at most 63 bytes, PostgreSQL's NAMEDATALEN - 1), so it needs no quoting in
 * a connection's `-c search_path=` option.
 */
export const QUEUE_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Where the queue lives and what stands in front of it: the two facts that
 * decide how its connections are set up.
 */
export interface QueuePlacement {
  /** Schema of the queue's tables and functions (DATABASE_SCHEMA). */
  schema: string;
  /**
   * `transaction`: DATABASE_URL goes through a transaction pooler, which
   * refuses (PgBouncer 1.18: "unsupported startup parameter") or drops
   * session settings, so connections are not pinned by start-up options.
   */
  pooler: 'none' | 'transaction';
}

/** The placement of a queue in `public`, connected directly. */
export const DEFAULT_PLACEMENT: QueuePlacement = { schema: DEFAULT_QUEUE_SCHEMA, pooler: 'none' };

/**
 * The start-up option that pins a connection's `search_path` to the queue's
 * schema, whatever a DBA set with `ALTER DATABASE … SET search_path` or
 * `ALTER ROLE …` (start-up options take precedence over both), so the
 * service's unqualified statements always reach the queue's own tables.
 * Null behind a transaction pooler (see {@link QueuePlacement.pooler}).
 */
export function searchPathOption(placement: QueuePlacement): string | null {
  return placement.pooler === 'transaction' ? null : `-c search_path=${placement.schema}`;
}

/**
 * `url` with the {@link searchPathOption} as its `options` parameter (read by
 * node-postgres), for the dedicated connections (heartbeat, watchdog,
 * LISTEN). A URL that already has `options` is the user's choice and is kept.
 */
export function withSearchPathOption(url: string, placement: QueuePlacement): string {
  const option = searchPathOption(placement);
  if (option === null) return url;
  const parsed = new URL(url);
  if (parsed.searchParams.has('options')) return url;
  parsed.searchParams.set('options', option);
  return parsed.toString();
}
