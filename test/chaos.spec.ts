import { Client } from 'pg';
import { checkQueueTrace, connect, sleep, terminateBackends } from './support/failure-helpers';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { checkTrace, formatTraceReport } from '../src/testing/trace-checker';
import { createTestDatabase, TestDatabase } from './support/test-database';

/**
 * Chaos: several worker processes while a driver SIGKILLs and restarts them
 * and once cuts every database connection of the service. The trace must show
 * every action done exactly once, no overlapping leases in a group, no order
 * violation, nothing lost. CHAOS_LONG=1 runs a bigger variant.
 */
const LONG = process.env.CHAOS_LONG === '1';
const CFG = LONG
  ? { workers: 4, actions: 30_000, groups: 500, killEveryMs: [2_000, 3_000], enqueueEveryMs: 15_000, limitMs: 400_000 }
  : { workers: 4, actions: 5_000, groups: 200, killEveryMs: [2_000, 3_000], enqueueEveryMs: 2_500, limitMs: 90_000 };

const WORKER_ENV = {
  LOG_LEVEL: 'error',
  LEASE_MS: '2000',
  REAPER_INTERVAL_MS: '300',
  WORKER_POLL_INTERVAL_MS: '100',
  WORKER_CONCURRENCY: '16',
  DB_POOL_SIZE: '6',
  RETRY_BACKOFF_BASE_MS: '20',
  RETRY_BACKOFF_CAP_MS: '200',
  SHUTDOWN_TIMEOUT_MS: '3000',
};

const TYPES = ['instance.create', 'instance.update', 'instance.delete'];

describe('chaos: killed workers, cut connections', () => {
  let db: TestDatabase;
  let c: Client;
  const procs: (ServiceProcess | null)[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('chaos');
  });
  afterAll(async () => {
    for (const p of procs) await p?.kill().catch(() => undefined);
    await c?.end().catch(() => undefined);
    await db?.drop();
  });

  it(`${CFG.actions} actions in ${CFG.groups} groups survive SIGKILLs and a connection cut`, async () => {
    const t0 = Date.now();
    // The first process migrates; the others start next to it.
    procs.push(await startServiceProcess(db.url, WORKER_ENV));
    for (let i = 1; i < CFG.workers; i++) procs.push(await startServiceProcess(db.url, WORKER_ENV));
    c = await connect(db.url);

    // The driver: SIGKILL a random worker every 2-3 s and restart it (in the
    // background, so the kills keep their pace); cut all connections once.
    let kills = 0;
    let cut = 0;
    let stop = false;
    const restarts: Promise<void>[] = [];
    const driver = (async () => {
      let round = 0;
      while (!stop) {
        await sleep(CFG.killEveryMs[0] + Math.random() * (CFG.killEveryMs[1] - CFG.killEveryMs[0]));
        if (stop) break;
        round++;
        if (round === 2) {
          cut = await terminateBackends(db.name, `pid <> ${await backendPid(c)}`);
          continue;
        }
        const alive = procs.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
        if (alive.length <= 1) continue;
        const i = alive[Math.floor(Math.random() * alive.length)];
        const victim = procs[i]!;
        procs[i] = null;
        await victim.kill();
        kills++;
        restarts.push(
          startServiceProcess(db.url, WORKER_ENV).then((p) => {
            if (stop) return p.kill();
            procs[i] = p;
          }),
        );
      }
    })();

    // Enqueue by plain SQL in chunks spread over time, groups interleaved, while workers run and die.
    let failing = 0;
    const chunks = 10;
    const chunk = Math.ceil(CFG.actions / chunks);
    for (let from = 0; from < CFG.actions; from += chunk) {
      if (from > 0) await sleep(CFG.enqueueEveryMs);
      const items: { lockId: number; type: string; payload: string }[] = [];
      for (let i = from; i < Math.min(CFG.actions, from + chunk); i++) {
        const r = Math.random();
        const failAttempts = r < 0.7 ? 0 : r < 0.9 ? 1 : 2;
        if (failAttempts) failing++;
        items.push({
          lockId: 1 + Math.floor(Math.random() * CFG.groups),
          type: TYPES[i % 3],
          payload: JSON.stringify({ instanceId: i, durationMs: Math.floor(Math.random() * 21), failAttempts }),
        });
      }
      // A multi-group statement locks its groups row by row: in lock id order
      // (stable, so each group keeps its order), as the API's batch does, it
      // cannot deadlock with the workers' batched completions.
      items.sort((a, b) => a.lockId - b.lockId);
      await c.query(
        `INSERT INTO actions (lock_id, type, payload, max_attempts)
         SELECT l, t, p, 5 FROM unnest($1::bigint[], $2::text[], $3::jsonb[]) AS x(l, t, p)`,
        [items.map((x) => String(x.lockId)), items.map((x) => x.type), items.map((x) => x.payload)],
      );
    }

    let remaining = -1;
    try {
      const deadline = t0 + CFG.limitMs;
      while (Date.now() < deadline) {
        const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM actions WHERE status <> 'done'`);
        remaining = Number(rows[0].n);
        if (remaining === 0) break;
        await sleep(250);
      }
    } finally {
      stop = true;
      await driver;
      await Promise.allSettled(restarts);
    }

    const report = await checkQueueTrace(c);
    const runtimeS = (Date.now() - t0) / 1000;
    const repeated = report.attemptsByOutcome.lease_expired ?? 0;
    console.log(
      `chaos: ${report.actions} actions, ${CFG.groups} groups, ${CFG.workers} worker processes, ${kills} SIGKILLs, ` +
        `1 connection cut (${cut} backends), ${repeated} executions repeated because of kills (lease_expired), ` +
        `${failing} actions with simulated failures, attempts by outcome ${JSON.stringify(report.attemptsByOutcome)}, ${runtimeS.toFixed(1)} s`,
    );

    expect(remaining).toBe(0);
    expect(report.actions).toBe(CFG.actions);
    expect(report.notDone).toEqual([]);
    expect(report.doneRowsNotOne).toEqual([]);
    expect(report.overlaps).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    // The shared checker too, in exact microseconds, every outcome counted as a held lease.
    const strict = await checkTrace(c);
    expect(strict.ok ? 'ok' : formatTraceReport(strict)).toBe('ok');
    expect(kills).toBeGreaterThanOrEqual(LONG ? 20 : 5);
    expect(cut).toBeGreaterThan(0);
    expect(repeated).toBeGreaterThan(0);
    // Every repeated execution is visible: a done action ran once per trace row.
    const { rows } = await c.query<{ bad: string }>(
      `SELECT count(*) AS bad FROM actions a WHERE a.attempts <> (SELECT count(*) FROM action_attempts t WHERE t.action_id = a.id)`,
    );
    expect(Number(rows[0].bad)).toBe(0);

    // Surviving workers drain and exit 0 on SIGTERM.
    for (let i = 0; i < procs.length; i++) {
      const p = procs[i];
      procs[i] = null;
      if (p) expect(await p.stop()).toBe(0);
    }
  }, CFG.limitMs + 120_000);
});

async function backendPid(c: Client): Promise<number> {
  const { rows } = await c.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
  return rows[0].pid;
}
