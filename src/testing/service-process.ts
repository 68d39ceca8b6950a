import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join, sep } from 'node:path';
import { sleep } from '../sleep';

/**
 * The default entry point: this package's compiled service, `dist/src/main.js`
 * (the service starter with the demo handlers). This file runs either compiled
 * (dist/src/testing/, from the benchmark, the demo and installed packages) or
 * through ts-jest (src/testing/, from this repository's tests).
 */
export const SERVICE_MAIN = __dirname.includes(`${sep}dist${sep}`) ? join(__dirname, '..', 'main.js') : join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/**
 * A TCP port on 127.0.0.1 that is free right now (the OS picks it).
 * @publicApi
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * How to start a service process.
 * @publicApi
 */
export interface ServiceProcessOptions {
  /**
   * The script to run: your service's compiled entry (the file that calls
   * `bootstrapActionQueueService`), e.g. `dist/main.js`. Default this
   * package's own service (demo handlers only).
   */
  entry?: string;
  /** Settings on top of the current environment; `undefined` removes a variable (e.g. DATABASE_URL for the embedded server). */
  env?: Record<string, string | undefined>;
  /** Node options before the script, e.g. `--max-semi-space-size=32` or `--cpu-prof`. */
  nodeArgs?: string[];
  /** HTTP port; default a free one. */
  port?: number;
  /** How long to wait for the health path to answer 200 (ms); 0 returns without waiting. Default 30 000. */
  healthyWithinMs?: number;
  /** The path that answers 200 once the service is ready, e.g. `/queue/health` for routes under a prefix. Default `/health`. */
  healthPath?: string;
  /** Sample the process's resident memory every 50 ms (see `peakRss`). */
  sampleRss?: boolean;
}

/**
 * The service running as its own OS process.
 * @publicApi
 */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the process printed. */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Peak resident memory seen (bytes); 0 unless `sampleRss`. */
  peakRss(): number;
  /** Resolves when the health path answers 200; throws with the output if the process exits or `timeoutMs` passes. */
  healthy(timeoutMs?: number): Promise<void>;
  /** SIGKILL, no cleanup (a crash). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | string>;
}

/**
 * Starts a service built with the service starter (`entry`, compiled) as a
 * child process on a free port (PORT), with `env` on top of the current
 * environment, and, unless told otherwise, waits until its health path answers 200.
 * Used by this repository's process-level tests, the benchmark and the demo.
 *
 * @example
 * ```ts
 * const service = await startServiceProcess({ entry: 'dist/main.js', env: { DATABASE_URL: db.url } });
 * try { ... } finally { await service.stop(); }
 * ```
 * @throws Error with the process output when it exits during start-up or is not healthy in time.
 * @publicApi
 */
export async function startServiceProcess(options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, PORT: String(port) };
  for (const [key, value] of Object.entries(options.env ?? {})) if (value === undefined) delete env[key];
  let out = '';
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry ?? SERVICE_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let dead = false;
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  void exited.then(() => (dead = true));

  let peak = 0;
  const sampler = options.sampleRss
    ? setInterval(() => {
        try {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) peak = Math.max(peak, Number(m[1]) * 1024);
        } catch {
          // process gone
        }
      }, 50)
    : undefined;
  void exited.then(() => clearInterval(sampler));

  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    child,
    url,
    port,
    output: () => out,
    exited,
    peakRss: () => peak,
    healthy: async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (dead) throw new Error(`service process exited during start-up:\n${out}`);
        try {
          if ((await fetch(`${url}${options.healthPath ?? '/health'}`)).status === 200) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`service process did not become healthy within ${timeoutMs} ms:\n${out}`);
        await sleep(50);
      }
    },
    kill: async () => {
      if (!dead) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (!dead) child.kill('SIGTERM');
      return exited;
    },
  };
  const waitMs = options.healthyWithinMs ?? 30_000;
  if (waitMs > 0) {
    try {
      await service.healthy(waitMs);
    } catch (error) {
      await service.kill();
      throw error;
    }
  }
  return service;
}
