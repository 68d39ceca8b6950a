import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor, UnsupportedMediaTypeException } from '@nestjs/common';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { jsonBodyRejection } from './json-body-guard.middleware';

/**
 * The JSON body checks of {@link jsonBodyRejection} on the queue's own routes,
 * before validation: 415 for a body that is not JSON, 400 naming the field for
 * what PostgreSQL or class-transformer cannot take. A no-op where the service
 * starter's middleware has already checked the request.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rejection = context.getType() === 'http' ? jsonBodyRejection(context.switchToHttp().getRequest<Request>()) : null;
    if (rejection?.status === 415) throw new UnsupportedMediaTypeException(rejection.message);
    if (rejection) throw new BadRequestException([rejection.message]);
    return next.handle();
  }
}
