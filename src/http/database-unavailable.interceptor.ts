import { CallHandler, ExecutionContext, Injectable, NestInterceptor, ServiceUnavailableException } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { databaseRefusalMessage } from './database-unavailable.filter';

/**
 * On the queue's routes: an error saying PostgreSQL is unreachable or
 * restarting, or cancelled the statement (statement_timeout), becomes a 503 (`ServiceUnavailableException`, Nest's error body):
 * the client should retry, nothing was written. Every other error passes
 * unchanged, so an embedding app's own exception filters still see it.
 */
@Injectable()
export class DatabaseUnavailableInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) =>
        throwError(() => {
          const message = databaseRefusalMessage(error);
          return message === null ? error : new ServiceUnavailableException(message);
        }),
      ),
    );
  }
}
