import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { Observable } from 'rxjs';
import { stringifyJson } from './json-text';

/** Marks a response whose `json` is already wrapped (a route-scoped interceptor after a global one). */
const WRAPPED = Symbol('actions:deep-json');

/**
 * On the queue's routes: a response holding a payload or result nested
 * deeper than JSON.stringify can recurse (a SQL producer may store one
 * thousands of levels deep) is still answered, with the same JSON text,
 * written by {@link stringifyJson} instead of failing with 500. Express's
 * `res.json` is tried first, so ordinary responses cost nothing more, and the
 * value the route returns is unchanged for any other interceptor.
 */
@Injectable()
export class DeepJsonInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const res = context.switchToHttp().getResponse<Response & { [WRAPPED]?: true }>();
      if (!res[WRAPPED]) {
        res[WRAPPED] = true;
        const json = res.json.bind(res);
        res.json = (body: unknown) => {
          try {
            return json(body);
          } catch (error) {
            // res.json throws before writing anything: the stack overflow of a deep value.
            if (!(error instanceof RangeError)) throw error;
            if (!res.get('Content-Type')) res.type('application/json');
            return res.send(stringifyJson(body));
          }
        };
      }
    }
    return next.handle();
  }
}
