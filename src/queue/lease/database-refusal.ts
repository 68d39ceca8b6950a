/**
 * SQLSTATE classes that mean the database itself refused the statement or
 * the connection, not that the statement or this process was at fault:
 * 08 connection exception, 25 invalid transaction state (25006: read-only
 * transaction, as during a failover), 57 operator intervention (shutdown,
 * terminated sessions). Source: PostgreSQL manual, appendix A.
 */
const REFUSAL_SQLSTATE_CLASSES = new Set(['08', '25', '57']);

/** Socket errors of a database that is down or restarting (node `error.code`). */
const REFUSAL_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * Whether `error` shows the database refused to work (read-only, down,
 * restarting) while this process was able to ask: an answer or a refused
 * connection, never a client-side timeout (which a wedged event loop causes
 * too).
 * @param error anything a `pg` query rejected with.
 * @returns true for the SQLSTATE classes and socket codes above.
 */
export function isDatabaseRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (REFUSAL_SOCKET_CODES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && REFUSAL_SQLSTATE_CLASSES.has(code.slice(0, 2));
}
