import { CallHandler, ExecutionContext, Injectable, NestInterceptor, ServiceUnavailableException } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './database-unavailable.filter';

/**
 * On the queue's routes: an error saying PostgreSQL is unreachable or
 * restarting becomes a 503 (`ServiceUnavailableException`, Nest's error body):
 * the client should retry, nothing was written. Every other error passes
 * unchanged, so an embedding app's own exception filters still see it.
 */
@Injectable()
export class DatabaseUnavailableInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(
        catchError((error: unknown) =>
          throwError(() => (isDatabaseUnavailable(error) ? new ServiceUnavailableException(DATABASE_UNAVAILABLE_MESSAGE) : error)),
        ),
      );
  }
}
