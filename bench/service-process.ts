import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', 'src', 'main.js');

/** A service instance started for one scenario, with its peak resident memory sampled every 50 ms. */
export interface BenchService {
  child: ChildProcess;
  url: string;
  /** Peak RSS seen so far (bytes). */
  peakRss(): number;
  stop(): Promise<void>;
}

/** A port that is free right now (the OS picks it). */
function freePort(): Promise<number> {
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
 * Starts `node dist/src/main.js` (this file lives in dist/bench/) on `databaseUrl`
 * and waits until /health is 200.
 * @throws when the process exits or is not healthy within 30 s.
 */
export async function startBenchService(databaseUrl: string, env: Record<string, string> = {}): Promise<BenchService> {
  const port = await freePort();
  let out = '';
  // The same V8 flag as `npm start` (a larger young generation: fewer GC pauses
  // under load); BENCH_NODE_ARGS replaces it, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '--max-semi-space-size=32').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', DEMO_HANDLERS: 'true', ...env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // process gone
    }
  }, 50);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`service exited during start-up:\n${out}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not healthy within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    url,
    peakRss: () => peak,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      await exit;
      clearInterval(sampler);
    },
  };
}
