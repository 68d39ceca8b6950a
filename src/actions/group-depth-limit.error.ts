import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * The constraint name the database's depth check raises with
 * (src/database/sql/035-group-depth-limits.up.sql, SQLSTATE 53400).
 */
export const GROUP_DEPTH_LIMIT_CONSTRAINT = 'action_group_depth_limit';

/**
 * The 429 for an insert the database refused because its group already held
 * the maximum number of unfinished actions, or null for any other error. The
 * message is the database's, which names the group, the limit and its scope.
 * @param error what TypeORM or pg threw (the driver error may be wrapped in `driverError`).
 * @param outcome what was written, appended to the message: by default `nothing was enqueued`
 *   (a single insert or an all-or-nothing batch); a bulk retry says what its earlier chunks applied.
 * @returns an HttpException with status 429, or null.
 */
export function groupDepthLimitOfDatabase(error: unknown, outcome = 'nothing was enqueued'): HttpException | null {
  const e =
    (error as { driverError?: { code?: string; constraint?: string; message?: string } }).driverError ??
    (error as { code?: string; constraint?: string; message?: string });
  if (e?.code !== '53400' || e.constraint !== GROUP_DEPTH_LIMIT_CONSTRAINT) return null;
  return new HttpException(
    { statusCode: HttpStatus.TOO_MANY_REQUESTS, message: `${e.message}; ${outcome}`, error: 'Too Many Requests' },
    HttpStatus.TOO_MANY_REQUESTS,
  );
}
