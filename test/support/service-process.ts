import { ServiceProcess, startServiceProcess as start } from '../../src/testing/service-process';

export type { ServiceProcess };

/**
 * Starts the service (built by the jest globalSetup) as its own OS process on
 * `databaseUrl`, with quiet test defaults under `env`, and waits until healthy.
 */
export function startServiceProcess(databaseUrl: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ServiceProcess> {
  return start({ env: { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', ...env, DATABASE_URL: databaseUrl }, healthyWithinMs: timeoutMs });
}
