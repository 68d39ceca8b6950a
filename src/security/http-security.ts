import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Settings } from '../config/settings';
import { DASHBOARD_PATH, dashboardServed } from '../dashboard/dashboard-assets';
import { jsonBodyGuard, verifyJsonBodyEncoding } from '../http/json-body-guard.middleware';
import { apiKeyMiddleware } from './api-key.middleware';

interface HttpError extends Error {
  status?: number;
  statusCode?: number;
  type?: string;
}

/**
 * Express error handler for errors raised by the body parser, which runs
 * before Nest's router and exception filters: a body over BODY_LIMIT_BYTES is
 * 413 and malformed JSON 400, both with Nest's standard error body, never 500.
 */
export function bodyParserErrorHandler(limitBytes: number) {
  return (error: HttpError, _req: Request, res: Response, next: NextFunction): void => {
    if (error.type === 'entity.too.large') {
      res.status(413).json({ statusCode: 413, message: `request body exceeds ${limitBytes} bytes (BODY_LIMIT_BYTES)`, error: 'Payload Too Large' });
      return;
    }
    const status = error.status ?? error.statusCode;
    if (status && status >= 400 && status < 500) {
      const message = error.type === 'entity.parse.failed' ? 'request body must be a JSON object (valid JSON, starting with { or [)' : error.message;
      res.status(status).json({ statusCode: status, message, error: status === 415 ? 'Unsupported Media Type' : 'Bad Request' });
      return;
    }
    next(error);
  };
}

/**
 * Installs the HTTP edge protections, in this order: security headers
 * (helmet), CORS only when CORS_ORIGINS is set, the API key when API_KEY is
 * set (but for the dashboard's static files at /ui, see apiKeyMiddleware),
 * then the JSON body parser limited to BODY_LIMIT_BYTES and its error
 * handler. Call before `app.listen()` and before mounting Swagger.
 */
export function applyHttpSecurity(app: INestApplication, settings: Settings): void {
  app.use(helmet());
  if (settings.CORS_ORIGINS) {
    const origins = settings.CORS_ORIGINS.split(',').map((o) => o.trim());
    app.enableCors({ origin: origins.includes('*') ? '*' : origins, allowedHeaders: ['content-type', 'authorization', 'x-api-key'] });
  }
  if (settings.API_KEY) app.use(apiKeyMiddleware(settings.API_KEY, dashboardServed(settings) ? [DASHBOARD_PATH] : []));
}

/**
 * Installs the JSON body parser (BODY_LIMIT_BYTES; a body that is not valid
 * UTF-8 is refused with 400 before decoding), its 413/400 error handler, and
 * the JSON body guard (415/400).
 */
export function applyBodyParser(
  app: INestApplication & { useBodyParser(type: 'json', options: { limit: number; verify: typeof verifyJsonBodyEncoding }): unknown },
  settings: Settings,
): void {
  app.useBodyParser('json', { limit: settings.BODY_LIMIT_BYTES, verify: verifyJsonBodyEncoding });
  app.use(bodyParserErrorHandler(settings.BODY_LIMIT_BYTES));
  app.use(jsonBodyGuard());
}
