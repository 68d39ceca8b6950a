import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AppModuleOptions } from '../../src/service/app.module';
import type { ServiceSettings } from '../../src/config/settings';
import { trackRunning } from './running';
import { sleep } from '../../src/sleep';

/** The app started by `startTestApp`. */
export interface TestApp {
  app: INestApplication;
  /** Base URL of its HTTP server, `http://127.0.0.1:<port>`. */
  url: string;
  settings: ServiceSettings;
}

/**
 * Starts the real app on `databaseUrl` (listening on a free port) with the
 * given settings overrides on top of quiet test defaults. The leak check of
 * the database and process projects fails a test that leaves it open: close
 * it (`app.close()`) in the test or in an afterAll hook.
 */
export async function startTestApp(databaseUrl: string, env: Record<string, string> = {}, imports?: AppModuleOptions['imports']): Promise<TestApp> {
  const started = await launchTestApp(databaseUrl, env, imports);
  const { app } = started;
  // Open while its HTTP server listens: `app.close()` closes the server.
  trackRunning(
    `app on ${started.url}`,
    () => (app.getHttpServer() as Server).listening,
    () => app.close(),
  );
  return started;
}

/** `startTestApp` without the leak check, for helpers that close the app themselves. */
export async function launchTestApp(databaseUrl: string, env: Record<string, string> = {}, imports?: AppModuleOptions['imports']): Promise<TestApp> {
  // Loaded here, not at the top: the app's module graph takes about a second to
  // load, and specs that start no app in-process (most process specs) skip it.
  const { createApp } = await import('../../src/service/bootstrap');
  const { loadSettings } = await import('../../src/config/settings');
  const settings = loadSettings({
    LOG_LEVEL: 'silent',
    WORKER_POLL_INTERVAL_MS: '200',
    PORT: '0',
    // In-process apps share the jest process: no process-level error handlers, no watchdog thread.
    STRAY_ERROR_POLICY: 'off',
    WATCHDOG_ENABLED: 'false',
    ...env,
  });
  const app = await createApp({ databaseUrl, settings, imports });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  return { app, url: `http://127.0.0.1:${address.port}`, settings };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
