import type { QueryConfig } from 'pg';

/**
 * A named statement with its values and a client-side timeout: node-postgres
 * fails the query with "Query read timeout" after `timeoutMs` (it reads the
 * `query_timeout` field, which its typings do not list), and the pool then
 * discards the connection, so a hung connection never holds a caller.
 *
 * @param statement `{ name, text }` of a prepared statement.
 * @param values its parameters.
 * @param timeoutMs client-side timeout (ms).
 */
export function timedQuery(statement: { name: string; text: string }, values: unknown[], timeoutMs: number): QueryConfig {
  return { ...statement, values, query_timeout: timeoutMs } as QueryConfig;
}
