import { ArgumentsHost, Catch, HttpStatus } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { Response } from 'express';
import { isStatementTimeout } from '../database/statement-timeout';

/** SQLSTATEs that mean "the database is away", not "the request is wrong": class 08, shutdowns, no slots. */
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300)$/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Connection ended|terminating connection/i;

/** The message of the 503 answered when the database is unreachable. */
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

/** Whether `error` (a pg error, possibly wrapped by TypeORM) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const driver = (error as { driverError?: unknown }).driverError;
  const e = (driver instanceof Error ? driver : error) as Error & { code?: string };
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATES.test(e.code) || UNAVAILABLE_NODE_CODES.has(e.code))) return true;
  return UNAVAILABLE_MESSAGES.test(e.message) || UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * Answers 503 (with Nest's error body) when a route fails because PostgreSQL
 * is unreachable or restarting, or cancelled the statement (statement_timeout):
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
