import type { QueryConfig } from 'pg';

/**
 * A hot-path statement: its SQL and the name it is prepared under on a
 * direct connection.
 */
export interface HotPathStatement {
  /** Server-side prepared statement name (used only when {@link StatementNaming} allows). */
  name: string;
  /** SQL with `$n` placeholders. */
  text: string;
}

/**
 * Whether hot-path statements are sent as named (server-side prepared)
 * statements. Named on a direct connection: parsed and planned once per
 * connection, which saved about 0.1 ms per statement round trip in a
 * measurement on this project's 2-core machine (docs/operations.md, "Behind a
 * pooler"). Unnamed behind a transaction pooler (DATABASE_POOLER=transaction):
 * the next statement of a client may run on another server connection, where
 * the name is missing ("prepared statement … does not exist") or taken by
 * another client ("… already exists").
 */
export type StatementNaming = 'named' | 'unnamed';

/** The {@link StatementNaming} for a DATABASE_POOLER value. */
export function statementNaming(pooler: 'none' | 'transaction'): StatementNaming {
  return pooler === 'transaction' ? 'unnamed' : 'named';
}

/**
 * A hot-path statement with its values, named or not ({@link StatementNaming}).
 *
 * @param statement `{ name, text }`.
 * @param values its parameters.
 * @param naming whether to send it named.
 */
export function hotPathQuery(statement: HotPathStatement, values: unknown[], naming: StatementNaming): QueryConfig {
  return naming === 'named' ? { name: statement.name, text: statement.text, values } : { text: statement.text, values };
}

/**
 * {@link hotPathQuery} with a client-side timeout: node-postgres fails the
 * query with "Query read timeout" after `timeoutMs` (it reads the
 * `query_timeout` field, which its typings do not list), and the pool then
 * discards the connection, so a hung connection never holds a caller.
 *
 * @param statement `{ name, text }`.
 * @param values its parameters.
 * @param timeoutMs client-side timeout (ms).
 * @param naming whether to send it named.
 */
export function timedQuery(statement: HotPathStatement, values: unknown[], timeoutMs: number, naming: StatementNaming): QueryConfig {
  return { ...hotPathQuery(statement, values, naming), query_timeout: timeoutMs } as QueryConfig;
}
