import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { loadSettings } from './config/settings';
import { startEmbeddedPostgres } from './database/embedded-postgres';
import { HANDLER_MODULES } from './handler-modules';

/**
 * Entry point: validates settings, uses DATABASE_URL or starts the embedded
 * PostgreSQL, starts the app, and stops the embedded server after the app
 * has shut down (SIGTERM/SIGINT).
 */
async function main(): Promise<void> {
  const logger = new Logger('Main');
  let settings;
  try {
    settings = loadSettings(process.env);
  } catch (error) {
    // One clear line per bad setting, no stack trace.
    console.error((error as Error).message);
    process.exitCode = 1;
    return;
  }
  let embedded;
  try {
    embedded = settings.DATABASE_URL ? null : await startEmbeddedPostgres(settings, logger);
  } catch (error) {
    // A clear line (data folder in use on another port, binaries missing, ...), no stack trace.
    console.error(`Embedded PostgreSQL did not start: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  const databaseUrl = settings.DATABASE_URL ?? embedded!.url;
  const app = await createApp({ databaseUrl, settings, imports: HANDLER_MODULES });
  let closing = false;
  // A port in use (or any other listen failure): one clear line, and the embedded server stops too.
  const listenFailed = async (error: Error & { code?: string }) => {
    const hint = error.code === 'EADDRINUSE' ? `: port ${settings.PORT} is in use on ${settings.HOST}; set PORT to a free port` : `: ${error.message}`;
    console.error(`HTTP server did not start${hint}`);
    await app.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  };
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: draining`);
    // Nest runs beforeApplicationShutdown (the worker drains) and closes the pool.
    void app
      .close()
      .then(() => embedded?.stop())
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
    await app.listen(settings.PORT, settings.HOST);
  } catch (error) {
    await listenFailed(error as Error);
    return;
  }
  logger.log(`Listening on http://${settings.HOST}:${settings.PORT} (worker ${settings.WORKER_ENABLED ? 'on' : 'off'})`);
}

void main();
