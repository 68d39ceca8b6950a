import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { loadSettings } from './config/settings';
import { startEmbeddedPostgres } from './database/embedded-postgres';

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
  const embedded = settings.DATABASE_URL ? null : await startEmbeddedPostgres(settings, logger);
  const databaseUrl = settings.DATABASE_URL ?? embedded!.url;
  const app = await createApp({ databaseUrl, settings });
  if (embedded) {
    // Runs after Nest's shutdown hooks, when the pool is closed.
    const stopEmbedded = async () => embedded.stop();
    app.getHttpServer().on('close', () => void stopEmbedded());
  }
  await app.listen(settings.PORT, '0.0.0.0');
  logger.log(`Listening on http://127.0.0.1:${settings.PORT} (worker ${settings.WORKER_ENABLED ? 'on' : 'off'})`);
}

void main();
