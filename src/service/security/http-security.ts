import type { IncomingMessage, Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { ServiceSettings } from '../../config/settings';
import { DASHBOARD_PATH, dashboardServed } from '../../dashboard/dashboard-assets';
import { jsonBodyGuard, verifyJsonBodyEncoding } from '../../http/json-body-guard.middleware';
import { apiKeyMiddleware } from './api-key.middleware';
import { crossSiteGuard, hostGuard } from './browser-guard.middleware';
import { refusalLog } from './refusal-log.middleware';
import { applyServerTimeouts, requestDeadline } from './request-deadline.middleware';

interface HttpError extends Error {
  status?: number;
  statusCode?: number;
  type?: string;
}

/**
 * Express error handler for errors raised by the body parser, which runs
 * before Nest's router and exception filters: a body over BODY_LIMIT_BYTES (or,
 * for `POST /actions`, over `singleActionLimitBytes`) is 413 and malformed JSON
 * 400, both with Nest's standard error body, never 500.
 */
export function bodyParserErrorHandler(limitBytes: number, singleActionLimitBytes = limitBytes) {
  return (error: HttpError, req: Request, res: Response, next: NextFunction): void => {
    if (error.type === 'entity.too.large') {
      const message =
        isSingleEnqueue(req) && singleActionLimitBytes < limitBytes
          ? `request body exceeds ${singleActionLimitBytes} bytes, the most one action can take (4 x MAX_PAYLOAD_BYTES + 16384); its payload cannot fit`
          : `request body exceeds ${limitBytes} bytes (BODY_LIMIT_BYTES)`;
      res.status(413).json({ statusCode: 413, message, error: 'Payload Too Large' });
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
 * Installs the HTTP edge protections, in this order: the refusal log
 * (401/403/408/413/415, rate-limited), the deadline for a request's body
 * (REQUEST_TIMEOUT_MS), security headers (helmet), CORS only when
 * CORS_ORIGINS is set, the Host check (DNS rebinding, ALLOWED_HOSTS), the
 * API key when API_KEY is set (but for the dashboard's static files at /ui,
 * see apiKeyMiddleware), else the refusal of cross-site writes. Call before
 * `app.listen()` and before mounting Swagger.
 */
export function applyHttpSecurity(app: INestApplication, settings: ServiceSettings): void {
  app.use(refusalLog());
  app.use(requestDeadline(settings.REQUEST_TIMEOUT_MS));
  applyServerTimeouts(app.getHttpServer() as Server, settings.REQUEST_TIMEOUT_MS);
  app.use(helmet());
  if (settings.CORS_ORIGINS) {
    const origins = settings.CORS_ORIGINS.split(',').map((o) => o.trim());
    app.enableCors({ origin: origins.includes('*') ? '*' : origins, allowedHeaders: ['content-type', 'authorization', 'x-api-key'] });
  }
  app.use(hostGuard(settings));
  if (settings.API_KEY) app.use(apiKeyMiddleware(settings.API_KEY, dashboardServed(settings) ? [DASHBOARD_PATH] : []));
  else app.use(crossSiteGuard(settings));
}

/** Extra bytes a single action's body may hold beyond 4 x MAX_PAYLOAD_BYTES: the other fields, whitespace. */
const SINGLE_BODY_SLACK_BYTES = 16 * 1024;

/**
 * Largest body of `POST /actions` (one action): 4 x MAX_PAYLOAD_BYTES (its
 * payload as sent may be up to 3 times its compact size in escapes such as
 * `\ud83d\ude00`, plus indentation) + 16 KiB, never above BODY_LIMIT_BYTES.
 * Refused from `Content-Length` before a byte is parsed: a payload that cannot
 * fit costs nothing to refuse.
 */
export function singleActionBodyLimit(settings: Pick<ServiceSettings, 'MAX_PAYLOAD_BYTES' | 'BODY_LIMIT_BYTES'>): number {
  return Math.min(settings.BODY_LIMIT_BYTES, 4 * settings.MAX_PAYLOAD_BYTES + SINGLE_BODY_SLACK_BYTES);
}

/** Whether `req` is `POST /actions` (one action), the route with the smaller body limit. */
const isSingleEnqueue = (req: IncomingMessage): boolean => req.method === 'POST' && /^\/actions\/?(\?|$)/.test(req.url ?? '');

/**
 * Installs the JSON body parsers (`POST /actions` limited to
 * {@link singleActionBodyLimit}, every other route to BODY_LIMIT_BYTES; a
 * body that is not valid UTF-8 is refused with 400 before decoding), their
 * 413/400 error handler, and the JSON body guard (415/400).
 */
export function applyBodyParser(app: INestApplication & { useBodyParser(type: 'json', options: JsonParserOptions): unknown }, settings: ServiceSettings): void {
  const single = singleActionBodyLimit(settings);
  const isJson = (req: IncomingMessage) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '');
  app.use(refuseOversizeSingleAction(single, settings.BODY_LIMIT_BYTES));
  // The first parser takes the single-action route; the second skips a body already parsed.
  app.useBodyParser('json', { limit: single, verify: verifyJsonBodyEncoding, type: (req) => isJson(req) && isSingleEnqueue(req) });
  app.useBodyParser('json', { limit: settings.BODY_LIMIT_BYTES, verify: verifyJsonBodyEncoding });
  app.use(bodyParserErrorHandler(settings.BODY_LIMIT_BYTES, single));
  app.use(jsonBodyGuard(settings.MAX_PAYLOAD_BYTES));
}

/**
 * Express middleware answering 413 at once to a `POST /actions` whose
 * `Content-Length` is over `limitBytes`, before the body parser reads any of
 * it. The connection stays open: Node reads and discards the rest of the body
 * (no parse, no buffer), so a client that is still sending reads the answer.
 * Closing it under the upload made fetch (and the typed client) report
 * "fetch failed" (EPIPE) instead of the 413. A body that never ends is cut by
 * Node's requestTimeout (REQUEST_TIMEOUT_MS), as any body. A chunked body
 * without a length is left to the parser's limit.
 */
function refuseOversizeSingleAction(limitBytes: number, bodyLimitBytes: number) {
  const why = limitBytes < bodyLimitBytes ? ', the most one action can take (4 x MAX_PAYLOAD_BYTES + 16384); its payload cannot fit' : ' (BODY_LIMIT_BYTES)';
  return (req: Request, res: Response, next: NextFunction): void => {
    const length = Number(req.headers['content-length']);
    if (!isSingleEnqueue(req) || !(length > limitBytes)) return next();
    res.status(413).json({ statusCode: 413, message: `request body of ${length} bytes exceeds ${limitBytes} bytes${why}`, error: 'Payload Too Large' });
  };
}

/** Options of one JSON body parser (body-parser's). */
type JsonParserOptions = {
  limit: number;
  verify: typeof verifyJsonBodyEncoding;
  type?: (req: IncomingMessage) => boolean;
};
