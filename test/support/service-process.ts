import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_MAIN, ServiceProcess, ServiceProcessOptions, startServiceProcess as start } from '../../src/testing/service-process';
import { trackRunning } from './running';

export type { ServiceProcess, ServiceProcessOptions };
// SERVICE_MAIN: the built service's entry, dist/src/main.js (built by the process project's globalSetup).
export { freePort, SERVICE_MAIN } from '../../src/testing/service-process';

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

/** One line a process printed and when it arrived (ms after it was spawned). */
export interface TimedLine {
  atMs: number;
  text: string;
}

/**
 * Runs the built service with `env` (on top of the test's environment minus
 * every queue setting, and `LOG_LEVEL=warn`) until it exits by itself: for the
 * start-ups that must refuse. Not for a service that should run
 * (`startServiceProcess`).
 *
 * @param timeoutMs how long it may run (ms) before it is SIGKILLed and the promise rejects.
 * @returns its exit code (null when a signal ended it), everything it printed, and
 *   its lines (stdout and stderr) each with the time it arrived, for tests of when a line is printed.
 * @throws Error with its output when it did not exit within `timeoutMs`.
 */
export async function runServiceToExit(env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; output: string; lines: TimedLine[] }> {
  // Loaded here, like the app in test-app.ts: most specs never need the settings' validators.
  const { SETTING_NAMES } = await import('../../src/config/settings');
  return new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTING_NAMES.includes(k)));
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, [SERVICE_MAIN], { env: { ...base, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const lines: TimedLine[] = [];
    const partial = { stdout: '', stderr: '' };
    const collect = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      output += data;
      const text = partial[stream] + data.toString('utf8');
      const parts = text.split('\n');
      partial[stream] = parts.pop()!;
      for (const line of parts) lines.push({ atMs: Date.now() - spawnedAt, text: line });
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not exit by itself:\n${output}`));
    }, timeoutMs);
    // 'close', not 'exit': the last lines of its pipes have arrived by then.
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const text of [partial.stdout, partial.stderr]) if (text !== '') lines.push({ atMs: Date.now() - spawnedAt, text });
      resolve({ code, output, lines });
    });
  });
}
