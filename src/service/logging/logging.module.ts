import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { ServiceSettings } from '../../config/settings';
import { CREDENTIAL_PARAM, REDACTED, redactHeaders, redactUrl } from './redaction';

/**
 * Request headers never written to the log (a second line of defence: the
 * request serializer below already replaces every credential header, see
 * {@link redactHeaders}).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers["x-forwarded-authorization"]',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** A serialized request or response as pino-http logs it. */
type Serialized = { url?: string; headers?: Record<string, unknown>; query?: unknown; [key: string]: unknown };

/** The request as logged: credential headers and credential query parameters redacted ({@link redactHeaders}, {@link redactUrl}). */
export function redactRequest(req: Serialized): Serialized {
  const out: Serialized = { ...req };
  if (typeof req.url === 'string') out.url = redactUrl(req.url);
  if (req.headers) out.headers = redactHeaders(req.headers);
  if (req.query && typeof req.query === 'object') {
    out.query = Object.fromEntries(Object.entries(req.query).map(([name, value]) => [name, CREDENTIAL_PARAM.test(name) ? REDACTED : value]));
  }
  return out;
}

/** Whether pino-pretty is installed (it is a dev dependency; production images lack it). */
function prettyAvailable(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/**
 * pino-http options from the settings: JSON lines, one per request (method,
 * url, status, time; no bodies, no credentials), `LOG_LEVEL` respected,
 * pretty output only when stdout is a terminal.
 *
 * @param settings the validated settings.
 * @param isTty whether stdout is a terminal (default: detected).
 */
export function buildPinoHttpOptions(settings: ServiceSettings, isTty = Boolean(process.stdout.isTTY)): Options {
  return {
    level: settings.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    serializers: {
      req: (req: Serialized) => redactRequest(req),
      res: (res: Serialized) => (res.headers ? { ...res, headers: redactHeaders(res.headers) } : res),
    },
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    // Probes and scrapes are frequent and uninteresting: log them at debug.
    // A probe's 503 is its answer ("not ready yet", "database away"), not a
    // failure of the request: warn.
    customLogLevel: (req: IncomingMessage, res: ServerResponse, error?: Error) => {
      const probe = /^\/(health|metrics)\b/.test(req.url ?? '');
      if (probe && res.statusCode === 503) return 'warn';
      if (error || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return probe ? 'debug' : 'info';
    },
    transport: isTty && prettyAvailable() ? { target: 'pino-pretty', options: { singleLine: true, colorize: true } } : undefined,
  };
}

/**
 * Structured logging with nestjs-pino. `createApp` makes Nest's own Logger
 * (used by the worker for every attempt end, the reaper, etc.) write through
 * the same pino instance with `app.useLogger(app.get(Logger))`.
 */
@Module({})
export class LoggingModule {
  /** @param settings the validated settings (LOG_LEVEL). */
  static forRoot(settings: ServiceSettings): DynamicModule {
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: buildPinoHttpOptions(settings) })],
    };
  }
}
