import { ArgumentsHost, Catch, HttpStatus } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { Response } from 'express';
import { isStatementTimeout } from '../database/statement-timeout';

/**
 * SQLSTATEs that mean "the database refuses or cannot do it now", never "the
 * request is wrong" (PostgreSQL's appendix A): class 08 connection
 * exceptions; 25006 read-only transaction (a standby, a failover,
 * `default_transaction_read_only`); class 53 insufficient resources (disk
 * full, out of memory, too many connections); 57000 operator intervention and
 * 57P01-57P05 (admin or crash shutdown, cannot connect now, database dropped,
 * idle session timeout); class 58 system errors (I/O); 40001 and 40P01
 * (serialization failure, deadlock) that reached the route after its own retries.
 */
const UNAVAILABLE_SQLSTATES = /^(08...|25006|53...|57000|57P0[1-5]|58...|40001|40P01)$/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Connection ended|terminating connection/i;

/** The message of the 503 answered when the database is unreachable or refuses the work for now. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'database unavailable; nothing was written, retry later';

/** The message of the 503 answered when the database cancelled the statement (57014). */
export const STATEMENT_TIMEOUT_MESSAGE =
  'the database cancelled the statement (its statement_timeout, or a cancel request); nothing was written, retry later or raise statement_timeout for this service';

/**
 * The 503 message for `error` when the database refused it for now (away,
 * restarting, or the statement cancelled by its statement_timeout), else null.
 */
export function databaseRefusalMessage(error: unknown): string | null {
  if (isStatementTimeout(error)) return STATEMENT_TIMEOUT_MESSAGE;
  return isDatabaseUnavailable(error) ? DATABASE_UNAVAILABLE_MESSAGE : null;
}

/** Whether `error` (a pg error, possibly wrapped by TypeORM) says the database cannot be reached or refuses the work for now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const driver = (error as { driverError?: unknown }).driverError;
  const e = (driver instanceof Error ? driver : error) as Error & { code?: string };
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATES.test(e.code) || UNAVAILABLE_NODE_CODES.has(e.code))) return true;
  return UNAVAILABLE_MESSAGES.test(e.message) || UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * Answers 503 (with Nest's error body) when a route fails because PostgreSQL
 * is unreachable, restarting or refusing writes (see UNAVAILABLE_SQLSTATES),
 * or cancelled the statement (statement_timeout):
 * the client should retry, nothing was written.
 * Every other error goes to Nest's default handling. Installed globally by
 * the service starter; the queue's own routes carry DatabaseUnavailableInterceptor.
 */
@Catch()
export class DatabaseUnavailableFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const message = host.getType() === 'http' ? databaseRefusalMessage(exception) : null;
    if (message !== null) {
      const res = host.switchToHttp().getResponse<Response>();
      res.status(HttpStatus.SERVICE_UNAVAILABLE).json({
        statusCode: HttpStatus.SERVICE_UNAVAILABLE,
        message,
        error: 'Service Unavailable',
      });
      return;
    }
    super.catch(exception, host);
  }
}
