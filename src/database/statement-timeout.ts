/**
 * SQLSTATE 57014 `query_canceled`: the server cancelled the statement, by its
 * `statement_timeout` (a DBA's `ALTER DATABASE … SET statement_timeout`, say)
 * or by a cancel request. Source: PostgreSQL documentation, Appendix A
 * "PostgreSQL Error Codes".
 */
export const QUERY_CANCELED_SQLSTATE = '57014';

/**
 * Whether `error` (a pg error, possibly wrapped by TypeORM as `driverError`)
 * is a statement the server cancelled (statement_timeout). Nothing the
 * statement did is kept: it is rolled back (or its transaction aborted).
 */
export function isStatementTimeout(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const driver = (error as { driverError?: unknown }).driverError;
  const code = ((driver ?? error) as { code?: unknown }).code;
  return code === QUERY_CANCELED_SQLSTATE;
}
