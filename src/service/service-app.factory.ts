import { INestApplication } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule, AppModuleOptions } from './app.module';
import { loadSettings } from '../config/settings';
import { setupOpenApi } from '../docs/openapi';
import { DatabaseUnavailableFilter } from '../http/database-unavailable.filter';
import { QueueValidationPipe } from '../http/validation.pipe';
import { applyBodyParser, applyHttpSecurity } from './security/http-security';
import { BoundedCloseExpressAdapter } from './bounded-close-express-adapter';
import { StartupLogger } from './logging/startup-logger';

/**
 * Builds the service's Nest application (the one the service starter runs):
 * AppModule with the HTTP edge a whole service owns, in this order: pino as
 * Nest's logger, security headers, CORS, the API key, the JSON body parser
 * limited to BODY_LIMIT_BYTES with its JSON checks, validation (unknown
 * fields refused, every error naming its field) and a 503 filter for an
 * unreachable database on every route, and the OpenAPI document at `/docs`.
 * Closing it waits at most HTTP_CLOSE_TIMEOUT_MS for the HTTP requests in
 * flight (BoundedCloseExpressAdapter). Does not listen; call `app.listen(port)`.
 *
 * @param options database URL, settings (default from process.env) and the modules to add.
 * @throws Error naming the setting when a setting is invalid.
 */
export async function createServiceApp(options: AppModuleOptions): Promise<INestApplication> {
  const settings = options.settings ?? loadSettings(process.env);
  // Its close waits a bounded time for the requests in flight (bounded-close-express-adapter.ts).
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ ...options, settings }), new BoundedCloseExpressAdapter(), {
    bodyParser: false,
    // Start-up lines are written as they happen, in the app logger's JSON shape, until useLogger below
    // hands over to pino: buffered, a start-up that waits for the database showed nothing, then
    // every retry at once with one timestamp. 'silent' stays silent even before.
    bufferLogs: false,
    logger: settings.LOG_LEVEL === 'silent' ? false : new StartupLogger(settings),
  });
  // Nest's Logger (worker, reaper, start-up) writes through nestjs-pino: one JSON line each.
  app.useLogger(app.get(Logger));
  // Order matters: headers, CORS, API key, then the body parser (413 beyond BODY_LIMIT_BYTES).
  applyHttpSecurity(app, settings);
  applyBodyParser(app, settings);
  // The queue's routes carry both themselves (for apps embedding the module); these cover every other route.
  app.useGlobalPipes(new QueueValidationPipe());
  app.useGlobalFilters(new DatabaseUnavailableFilter(app.get(HttpAdapterHost).httpAdapter));
  if (settings.API_ENABLED) setupOpenApi(app);
  // No app.enableShutdownHooks(): it re-raises the signal after closing, so the
  // process would end "killed by SIGTERM". The starter closes the app itself and exits 0.
  return app;
}
