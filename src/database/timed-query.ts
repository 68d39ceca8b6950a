import type { QueryConfig } from 'pg';

/**
 * A statement with its values and a client-side timeout: node-postgres fails
 * the query with "Query read timeout" after `timeoutMs` (it reads the
 * `query_timeout` field, which its typings do not list), and the pool then
 * discards the connection, so a hung connection never holds a caller.
 *
 * The statement is sent unnamed (no server-side prepared statement): a
 * transaction pooler (PgBouncer `pool_mode = transaction`) may run the next
 * statement of a client on another server connection, where a named one is
 * missing ("prepared statement … does not exist") or already taken by
 * another client ("… already exists"). The hot path's statements are calls
 * of plpgsql functions, which cache their own plans, so a parse per call
 * costs little (figures in docs/operations.md, "Behind a pooler").
 *
 * @param statement `{ text }` of the statement (SQL with `$n` placeholders).
 * @param values its parameters.
 * @param timeoutMs client-side timeout (ms).
 */
export function timedQuery(statement: { text: string }, values: unknown[], timeoutMs: number): QueryConfig {
  return { text: statement.text, values, query_timeout: timeoutMs } as QueryConfig;
}
