import { INestApplication } from '@nestjs/common';
import { createApp } from '../../src/bootstrap';
import { loadSettings, Settings } from '../../src/config/settings';
import { AppModuleOptions } from '../../src/app.module';

/**
 * Starts the real app on `databaseUrl` (listening on a free port) with the
 * given settings overrides on top of quiet test defaults.
 */
export async function startTestApp(
  databaseUrl: string,
  env: Record<string, string> = {},
  imports?: AppModuleOptions['imports'],
): Promise<{ app: INestApplication; url: string; settings: Settings }> {
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
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
