import { join } from 'node:path';
import { ServiceProcess, startServiceProcess as start } from '../../src/testing/service-process';

export type { ServiceProcess };

/**
 * Starts the service (built by the jest globalSetup) as its own OS process on
 * `databaseUrl`, with quiet test defaults under `env`, and waits until healthy.
 */
export function startServiceProcess(databaseUrl: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ServiceProcess> {
  return start({ env: { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', ...env, DATABASE_URL: databaseUrl }, healthyWithinMs: timeoutMs });
}

/** The fixture service (test/fixtures/fixture-service.ts, compiled by the globalSetup): the test handlers beside the demo ones. */
export const FIXTURE_SERVICE = join(__dirname, '..', '..', 'dist', 'test', 'fixtures', 'fixture-service.js');

/**
 * Starts the fixture service as its own OS process, like {@link startServiceProcess}.
 * @param nodeArgs Node options, e.g. `--max-old-space-size=200`.
 */
export function startFixtureService(databaseUrl: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServiceProcess> {
  return start({
    script: FIXTURE_SERVICE,
    nodeArgs,
    env: { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', DEMO_HANDLERS: 'true', ...env, DATABASE_URL: databaseUrl },
    healthyWithinMs: 30_000,
  });
}
