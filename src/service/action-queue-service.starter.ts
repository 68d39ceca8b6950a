import 'reflect-metadata';
import { DynamicModule, INestApplication, Logger } from '@nestjs/common';
import { loadSettings, ServiceSettings } from '../config/settings';
import { EmbeddedPostgresHandle, startEmbeddedPostgres } from '../database/embedded-postgres';
import { networkExposureProblem, noApiKeyWarning } from './security/network-exposure';
import { StartupLogger } from './logging/startup-logger';
import { createServiceApp } from './service-app.factory';
import { armShutdownDeadline, shutdownDeadlineMs } from './shutdown-deadline';

/**
 * Modules to add to the service, typically the ones providing your
 * `@ActionHandler` classes.
 * @publicApi
 */
export type ActionQueueServiceImports = NonNullable<DynamicModule['imports']>;

/**
 * Options of {@link bootstrapActionQueueService}.
 * @publicApi
 */
export interface ActionQueueServiceOptions {
  /**
   * Your modules, or a function of the validated settings that returns them
   * (to add a module only under some setting).
   */
  imports?: ActionQueueServiceImports | ((settings: ServiceSettings) => ActionQueueServiceImports);
  /** Where the settings are read from. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * The running service returned by {@link bootstrapActionQueueService}.
 * @publicApi
 */
export interface ActionQueueServiceHandle {
  /** The Nest application (listening). */
  app: INestApplication;
  /** Base URL of the HTTP server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The validated settings in use. */
  settings: ServiceSettings;
  /** URL of the database in use (DATABASE_URL, or the embedded server's). */
  databaseUrl: string;
  /** Drains the worker, closes the app and stops the embedded PostgreSQL (if it started one). Does not exit. */
  stop(): Promise<void>;
}

/**
 * Runs the ordered action queue as a service, with your handlers: the same
 * code path as this repository's own `npm start`. In order:
 *
 * - reads and validates every setting from the environment (docs/settings.md; an invalid one prints one line naming it); refuses to listen
 *   on a non-loopback HOST without API_KEY unless TRUSTED_NETWORK=true, and
 *   warns at every start-up without a key;
 * - uses `DATABASE_URL`, or starts an embedded PostgreSQL under
 *   `EMBEDDED_PG_DIR` when it is unset;
 * - applies the migrations, discovers the handlers of `imports`, starts the
 *   worker and serves every route on `HOST:PORT`: the REST API (unless
 *   API_ENABLED=false), `/health`, `/health/ready`, `/metrics` and the OpenAPI
 *   document at `/docs`, with JSON logs, security headers, the API key
 *   (API_KEY), CORS and the body limit;
 * - turns on the process guards (STRAY_ERROR_POLICY, WATCHDOG_ENABLED);
 * - on SIGTERM or SIGINT drains the worker (SHUTDOWN_TIMEOUT_MS), closes the
 *   app, stops the embedded PostgreSQL and exits with code 0; during start-up
 *   too (what has started is stopped). Every step is bounded, so it exits
 *   even when the database stopped answering; if the shutdown has not ended
 *   within SHUTDOWN_TIMEOUT_MS + LEASE_MS + at most 12 s (22 s with the
 *   embedded PostgreSQL), it logs the steps still pending
 *   and exits with code 1.
 *
 * When start-up fails on the environment (a bad setting, a port in use,
 * PostgreSQL not starting) it prints one line saying why, sets
 * `process.exitCode = 1` (exits when the HTTP server cannot listen) and
 * resolves to undefined: it is meant to be the whole of your `main.ts`. A
 * mistake in your modules (two handlers for one type, say) rejects the
 * promise with an error naming it.
 *
 * @param options your handler modules, and where the settings come from.
 * @returns the running service, or undefined when start-up failed.
 * @example
 * ```ts
 * // main.ts of your service
 * import { bootstrapActionQueueService } from 'ordered-action-queue';
 * import { BillingHandlersModule } from './billing-handlers.module';
 *
 * void bootstrapActionQueueService({ imports: [BillingHandlersModule] });
 * ```
 * @publicApi
 */
export async function bootstrapActionQueueService(options: ActionQueueServiceOptions = {}): Promise<ActionQueueServiceHandle | undefined> {
  const logger = new Logger('Main');
  let settings: ServiceSettings;
  try {
    settings = loadSettings(options.env ?? process.env);
  } catch (error) {
    // One clear line per bad setting, no stack trace.
    console.error((error as Error).message);
    process.exitCode = 1;
    return undefined;
  }
  const exposure = networkExposureProblem(settings);
  if (exposure) {
    console.error(exposure);
    process.exitCode = 1;
    return undefined;
  }
  // JSON from the first line on: the app's pino logger replaces this one when it exists.
  Logger.overrideLogger(new StartupLogger(settings));
  // A signal stops the service however far start-up has got: installed before anything starts,
  // so that a SIGTERM while connecting or migrating (say, to a database that stopped answering)
  // ends the process too. What exists by then is stopped (stop), within the deadline.
  let embedded: EmbeddedPostgresHandle | null = null;
  let app: INestApplication | undefined = undefined;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await app?.close();
      await embedded?.stop();
    })());
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    logger.log(`${signal} received: ${app ? 'draining' : 'stopping during start-up'}`);
    // The backstop: every step below is bounded by itself; whatever is not, this ends.
    armShutdownDeadline(shutdownDeadlineMs(settings, !settings.DATABASE_URL), logger);
    // Nest runs beforeApplicationShutdown (the worker drains) and closes the pool.
    void stop()
      .then(() => {
        logger.log('Stopped');
        process.exit(0);
      })
      .catch((error: Error) => {
        logger.error(`Shutdown failed: ${error.message}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  try {
    embedded = settings.DATABASE_URL ? null : await startEmbeddedPostgres(settings, logger);
  } catch (error) {
    if (stopping) return undefined;
    // A clear line (data folder in use on another port, binaries missing, ...), no stack trace.
    console.error(`Embedded PostgreSQL did not start: ${(error as Error).message}`);
    process.exitCode = 1;
    return undefined;
  }
  const databaseUrl = settings.DATABASE_URL ?? embedded!.url;
  const imports = typeof options.imports === 'function' ? options.imports(settings) : (options.imports ?? []);
  let created: INestApplication;
  try {
    created = await createServiceApp({ databaseUrl, settings, imports });
  } catch (error) {
    await embedded?.stop().catch(() => undefined);
    // Stopping anyway (a signal during start-up): the shutdown under way exits.
    if (stopping) return undefined;
    throw error;
  }
  if (stopping) {
    // A signal came while the app was being built: it was not there to close.
    await created.close().catch(() => undefined);
    return undefined;
  }
  app = created;
  try {
    await app.listen(settings.PORT, settings.HOST);
  } catch (error) {
    // Stopping anyway (a signal during start-up closed the app under it): the shutdown under way exits.
    if (stopping) return undefined;
    // A port in use (or any other listen failure): one clear line, and the embedded server stops too.
    const { code, message } = error as Error & { code?: string };
    const hint = code === 'EADDRINUSE' ? `: port ${settings.PORT} is in use on ${settings.HOST}; set PORT to a free port` : `: ${message}`;
    console.error(`HTTP server did not start${hint}`);
    await app.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }
  // The port actually bound: with PORT=0 the system picks one, and that is the one to log.
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://${settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST}:${port}`;
  logger.log(`Listening on ${url} (worker ${settings.WORKER_ENABLED ? 'on' : 'off'})`);
  if (!settings.API_KEY) logger.warn(noApiKeyWarning(settings));
  return { app, url, settings, databaseUrl, stop };
}
