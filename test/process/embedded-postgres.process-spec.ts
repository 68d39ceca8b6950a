import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ServiceProcess, sleep, startServiceProcess } from '../support';

/** Alive and not a zombie (an init that reaps late leaves a stopped postmaster as a zombie for a while). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return !existsSync('/proc');
  }
}

type Instance = ServiceProcess;

/** `node dist/src/main.js` with the embedded PostgreSQL (no DATABASE_URL); not yet healthy. */
function launch(dataDir: string, pgPort: number, logLevel = 'warn'): Promise<Instance> {
  return startServiceProcess({
    env: { LOG_LEVEL: logLevel, EMBEDDED_PG_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), DATABASE_URL: undefined },
    healthyWithinMs: 0,
  });
}

/** Waits until `/health` answers 200; fails with the process output if it exits or takes over 30 s. */
const healthy = (instance: Instance): Promise<void> => instance.healthy(30_000);

function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

describe('embedded PostgreSQL shared by two service processes', () => {
  let root: string;
  let dataDir: string;
  let pgPort: number;
  const started: Instance[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'aq-embedded-'));
    dataDir = join(root, 'pg');
    pgPort = await freePort();
  });

  afterAll(async () => {
    for (const instance of started) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGKILL');
      await instance.exited;
    }
    const pid = postmasterPid(dataDir);
    if (pid !== null && isRunning(pid)) process.kill(pid, 'SIGQUIT'); // immediate shutdown of anything left
    for (let i = 0; i < 50 && pid !== null && isRunning(pid); i++) await sleep(100);
    rmSync(root, { recursive: true, force: true });
  });

  async function start(logLevel?: string): Promise<Instance> {
    const instance = await launch(dataDir, pgPort, logLevel);
    started.push(instance);
    return instance;
  }

  async function expectServes(instance: Instance): Promise<void> {
    expect((await fetch(`${instance.url}/health`)).status).toBe(200);
    const res = await fetch(`${instance.url}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'instance.create', lockId: '1' }),
    });
    expect(res.status).toBe(201);
  }

  it('two processes starting at once on an empty folder: the server stays up until the last one stops', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    await Promise.all([healthy(a), healthy(b)]);
    const postmaster = postmasterPid(dataDir);
    expect(postmaster).not.toBeNull();

    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(isRunning(postmaster!)).toBe(true);
    await expectServes(b);

    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(isRunning(postmaster!)).toBe(false);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('one of two is killed (kill -9): the other keeps it, and stopping the other stops the server', async () => {
    const a = await start();
    await healthy(a);
    const b = await start();
    await healthy(b);
    const postmaster = postmasterPid(dataDir)!;

    a.child.kill('SIGKILL');
    await a.exited;
    await expectServes(b);

    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(isRunning(postmaster)).toBe(false);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('writes its start-up as JSON lines from the first one (the embedded server starting included), not Nest text', async () => {
    const instance = await start('info');
    await healthy(instance);
    instance.child.kill('SIGTERM');
    expect(await instance.exited).toBe(0);
    const lines = instance
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const messages = lines.map((line) => JSON.parse(line) as { context?: string; msg: string });
    expect(messages[0]).toEqual(expect.objectContaining({ context: 'Main', msg: expect.stringMatching(/embedded PostgreSQL/i) }));
    expect(messages.map((m) => m.msg)).toContainEqual(expect.stringMatching(/^Listening on http/));
  });
});
