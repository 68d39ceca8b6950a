import { join } from 'node:path';
import { ServiceProcess, ServiceProcessOptions, startServiceProcess as start } from '../../src/testing/service-process';
import { trackRunning } from './running';

export type { ServiceProcess, ServiceProcessOptions };
export { freePort } from '../../src/testing/service-process';

/**
 * Starts the service (built by the jest globalSetup) as its own OS process on
 * `databaseUrl`, with quiet test defaults under `env`, and waits until healthy.
 * With `ServiceProcessOptions` instead, starts it exactly as told.
 *
 * The leak check of the process project fails a test that leaves the process
 * running: `stop()` or `kill()` it in the test or in an afterAll hook.
 *
 * @example
 * const svc = await startServiceProcess(db.url, { WORKER_CONCURRENCY: '8' });
 * try { … fetch(`${svc.url}/stats`) … } finally { await svc.stop(); }
 */
export function startServiceProcess(databaseUrl: string, env?: Record<string, string>, timeoutMs?: number): Promise<ServiceProcess>;
export function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess>;
export async function startServiceProcess(
  target: string | ServiceProcessOptions,
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<ServiceProcess> {
  const options: ServiceProcessOptions =
    typeof target === 'string'
      ? { env: { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', ...env, DATABASE_URL: target }, healthyWithinMs: timeoutMs }
      : target;
  const service = await start(options);
  let running = true;
  void service.exited.then(() => (running = false));
  trackRunning(
    `service process ${service.child.pid} on ${service.url}`,
    () => running,
    () => service.kill(),
  );
  return service;
}

/** The fixture service (test/fixtures/fixture-service.ts, compiled by the globalSetup): the test handlers beside the demo ones. */
export const FIXTURE_SERVICE = join(__dirname, '..', '..', 'dist', 'test', 'fixtures', 'fixture-service.js');

/**
 * Starts the fixture service as its own OS process, like {@link startServiceProcess}.
 * @param nodeArgs Node options, e.g. `--max-old-space-size=200`.
 */
export function startFixtureService(databaseUrl: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServiceProcess> {
  return startServiceProcess({
    entry: FIXTURE_SERVICE,
    nodeArgs,
    env: { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', DEMO_HANDLERS: 'true', ...env, DATABASE_URL: databaseUrl },
    healthyWithinMs: 30_000,
  });
}
