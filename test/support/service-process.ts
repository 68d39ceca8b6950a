import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** A service instance running as its own OS process (built by the jest globalSetup). */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the process printed. */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** SIGKILL, no cleanup (a crash). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | string>;
}

let nextPort = 41_000 + Math.floor(Math.random() * 10_000);

/**
 * Starts `node dist/src/main.js` against `databaseUrl` with extra settings and
 * waits until `/health` answers 200 (or the process dies).
 */
export async function startServiceProcess(databaseUrl: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ServiceProcess> {
  const port = nextPort++;
  let out = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '200', ...env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  void exited.then(() => (dead = true));
  for (;;) {
    if (dead) throw new Error(`service process exited during start-up:\n${out}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service process did not become healthy within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    port,
    output: () => out,
    exited,
    kill: async () => {
      if (!dead) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (!dead) child.kill('SIGTERM');
      return exited;
    },
  };
}
