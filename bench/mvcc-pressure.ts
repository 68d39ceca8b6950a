import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { ServiceProcess, startServiceProcess } from '../src/testing';
import { sleep } from '../src/sleep';
import { testSearchPathSql } from '../src/testing/test-database';
import { BENCH_SERVER_URL, databaseUrl, dropDatabase, withClient } from './bench-database';
import { CostWindow, formatCostWindow, PressureCostTimeline } from './pressure-cost-timeline';

/**
 * MVCC pressure scenarios: `npm run bench -- --pressure` (bench/README.md,
 * "MVCC pressure"; docs/mvcc-pressure.md explains the effect).
 *
 * A producer offers actions at a steady rate (plain SQL inserts, one statement
 * every TICK_MS) to one service instance with few worker slots, the demo
 * handler with durationMs 0. Each phase, in a fresh database the service
 * migrates itself: WARM_UP_S without pressure, then `seconds` with one kind of
 * pressure, then the pressure ends and the producer goes on for RECOVERY_S.
 * - `none`: no pressure (the reference).
 * - `xid`: one session holds `BEGIN; SELECT txid_current();` idle in transaction.
 * - `readers`: four sessions each hold one REPEATABLE READ transaction for the
 *   whole phase and count the rows of `actions` every 100 ms (the public
 *   harness's "active readers": see repeatableReadReaders).
 * Reported per phase (database clock, from the trace): completions / offered
 * during the pressure, pickup latency ("claim" p50/p99: first attempt's start
 * minus created_at, for actions enqueued during the pressure), the backlog
 * (pending + running) when the pressure ends and RECOVERY_S later, and dead
 * row versions per completed action (growth of n_dead_tup over the queue's
 * tables during the pressure, after the statistics caught up).
 *
 * Options: `--pressure-seconds=180` (phase length), `--pressure-rate=800`
 * (actions/s offered), `--pressure-workers=32` (WORKER_CONCURRENCY),
 * `--pressure-groups=0` (lock ids i % N; 0: no group), `--pressure-phases=none,xid,readers`,
 * `--pressure-entry=<dist/src/main.js of another checkout>` (its service
 * migrates the database itself: an A/B against older code),
 * `--pressure-label=<name>` (printed, and the results file's suffix),
 * `--pressure-reader-nice=19` (the readers' server processes reniced: see repeatableReadReaders),
 * `--pressure-explain-ms=5` (auto_explain in the phase's database: every statement of the service,
 * nested ones included, that runs 5 ms or longer goes to the server's log with its plan and buffers).
 */

const TICK_MS = 25;
const WARM_UP_S = 5;
const RECOVERY_S = 30;
/** The statistics collector reports a backend's counts at most once a second; wait that long before reading n_dead_tup. */
const STATS_SETTLE_MS = 1_500;
const READERS = 4;
/** A reader's pause between two counts (the harness's 0.1 s). */
const READER_PAUSE_MS = 100;
// Both layouts of the group tables (before and after migration 039), for A/B runs against older code.
const QUEUE_TABLES = `('actions', 'action_groups', 'action_group_locks', 'action_group_heads', 'action_attempts')`;
/** Length of the two windows whose cost per attempt is compared (s). */
const COST_WINDOW_S = 30;

/** One pressure phase's figures. */
export interface PressurePhaseResult {
  label: string;
  phase: string;
  seconds: number;
  offered: number;
  completed: number;
  completedRatio: number;
  claimP50Ms: number;
  claimP99Ms: number;
  backlogAtEnd: number;
  backlogAfterRecovery: number;
  deadTuplesPerAction: number;
  traceOk: boolean;
  /** `readers` only: how many counts the four readers made, and their mean time (ms). */
  readerScans?: number;
  readerScanMeanMs?: number;
  /** The cost of an attempt in the first and in the last COST_WINDOW_S of the pressure (bench/pressure-cost-timeline.ts). */
  costAtStart: CostWindow | null;
  costAtEnd: CostWindow | null;
}

interface PressureOptions {
  seconds: number;
  rate: number;
  workers: number;
  groups: number;
  phases: string[];
  entry?: string;
  label: string;
  /** Nice value of the readers' server processes (0: as the service's; see repeatableReadReaders). */
  readerNice: number;
  /** auto_explain's log_min_duration for the phase's database (ms; undefined: off). */
  explainMs?: number;
}

function option(argv: string[], name: string): string | undefined {
  return argv.find((a) => a.startsWith(`--pressure-${name}=`))?.slice(`--pressure-${name}=`.length);
}

function parseOptions(argv: string[]): PressureOptions {
  const phases = (option(argv, 'phases') ?? 'none,xid,readers').split(',');
  for (const p of phases) if (!['none', 'xid', 'readers'].includes(p)) throw new Error(`--pressure-phases: unknown phase ${p} (none, xid, readers)`);
  return {
    seconds: Number(option(argv, 'seconds') ?? 180),
    rate: Number(option(argv, 'rate') ?? 800),
    workers: Number(option(argv, 'workers') ?? 32),
    groups: Number(option(argv, 'groups') ?? 0),
    phases,
    entry: option(argv, 'entry'),
    label: option(argv, 'label') ?? (option(argv, 'entry') ? 'other checkout' : 'this checkout'),
    readerNice: Number(option(argv, 'reader-nice') ?? 0),
    explainMs: option(argv, 'explain-ms') === undefined ? undefined : Number(option(argv, 'explain-ms')),
  };
}

/** Offers `rate` actions/s until stopped: one INSERT … SELECT per tick, as many rows as the schedule is behind. */
class Producer {
  private stopped = false;
  private offered = 0;
  private readonly done: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly rate: number,
    private readonly groups: number,
  ) {
    // Stopped on a failed insert; stop() rethrows it (never an unhandled rejection that would leave the service running).
    this.done = this.run().catch((error: unknown) => {
      this.stopped = true;
      this.failure = error;
    });
  }

  private failure: unknown;

  get count(): number {
    return this.offered;
  }

  private async run(): Promise<void> {
    const started = performance.now();
    const lockExpr = this.groups > 0 ? `(($2::bigint + i) % ${this.groups})` : 'NULL::bigint';
    while (!this.stopped) {
      const due = Math.floor(((performance.now() - started) / 1000) * this.rate) - this.offered;
      if (due > 0) {
        await this.client.query(
          `INSERT INTO actions (lock_id, type, payload) SELECT ${lockExpr}, 'instance.update', '{"durationMs": 0}' FROM generate_series(1, $1::int) AS i`,
          this.groups > 0 ? [due, this.offered] : [due],
        );
        this.offered += due;
      }
      await sleep(TICK_MS);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    if (this.failure) throw this.failure;
  }
}

/** Something that holds the MVCC horizon until released. */
interface Pressure {
  release(): Promise<void>;
}

async function holdXid(url: string): Promise<Pressure> {
  const c = new Client({ connectionString: url });
  await c.connect();
  await c.query('BEGIN');
  await c.query('SELECT txid_current()');
  return {
    release: async () => {
      await c.query('ROLLBACK');
      await c.end();
    },
  };
}

/**
 * Four analytics readers as the public harness runs them (hardbyte/postgresql-job-queue-benchmarking,
 * bench_harness/hooks.py, "active-readers"): each opens one REPEATABLE READ transaction and keeps it
 * for the whole phase (its snapshot holds the horizon), counting the rows of `actions` every
 * READER_PAUSE_MS. Each count sees the table as it was when the phase began, so it reads every row
 * version written since: the scans grow with the phase, as a report over a busy table does.
 * With `nice` > 0 (`--pressure-reader-nice=19`) their server processes run at that nice value: on a
 * 2-core machine the four growing scans end up taking most of the CPU, which readers on a replica
 * or on a larger server would not take from the queue; the phase then shows what their snapshots
 * and scans do to the queue (a held horizon, buffers, locks) apart from the CPU they use.
 * Needs the server on this machine and the right to renice its processes (root or its owner).
 */
async function repeatableReadReaders(url: string, nice: number): Promise<Pressure & { scans(): { count: number; meanMs: number } }> {
  let stopped = false;
  let scans = 0;
  let scanMs = 0;
  const clients = await Promise.all(
    Array.from({ length: READERS }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      if (nice !== 0) {
        // A server on this machine only: its backend is a local process we may renice.
        const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        execFileSync('renice', ['-n', String(nice), '-p', String(rows[0].pid)], { stdio: 'ignore' });
      }
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      return c;
    }),
  );
  const loops = clients.map(async (c) => {
    while (!stopped) {
      const t0 = performance.now();
      await c.query(`SELECT count(*) FROM actions`);
      scanMs += performance.now() - t0;
      scans += 1;
      await sleep(READER_PAUSE_MS);
    }
  });
  return {
    scans: () => ({ count: scans, meanMs: scanMs / Math.max(1, scans) }),
    release: async () => {
      stopped = true;
      await Promise.all(loops);
      await Promise.all(clients.map(async (c) => (await c.query('COMMIT'), await c.end())));
    },
  };
}

/** Loads auto_explain into the sessions the service opens on `url` from now on (a superuser's setting). */
async function logSlowPlans(url: string, minMs: number): Promise<void> {
  await withClient(url, async (c) => {
    const db = c.escapeIdentifier((await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db);
    for (const [name, value] of [
      ['session_preload_libraries', 'auto_explain'],
      ['auto_explain.log_min_duration', String(minMs)],
      ['auto_explain.log_nested_statements', 'on'],
      ['auto_explain.log_analyze', 'on'],
      ['auto_explain.log_buffers', 'on'],
      ['auto_explain.log_timing', 'off'],
    ]) {
      await c.query(`ALTER DATABASE ${db} SET ${name} = '${value}'`);
    }
  });
}

async function deadTuples(c: Client): Promise<number> {
  await sleep(STATS_SETTLE_MS);
  const { rows } = await c.query<{ n: number }>(`SELECT coalesce(sum(n_dead_tup), 0)::float8 AS n FROM pg_stat_user_tables WHERE relname IN ${QUEUE_TABLES}`);
  return rows[0].n;
}

async function backlog(c: Client): Promise<number> {
  const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status IN ('pending', 'running')`);
  return rows[0].n;
}

async function runPhase(phase: string, o: PressureOptions, log: (line: string) => void): Promise<PressurePhaseResult> {
  const name = `aq_bench_pressure_${phase}_${process.pid}`;
  await dropDatabase(name);
  await withClient(BENCH_SERVER_URL, async (admin) => {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    await admin.query(testSearchPathSql(admin.escapeIdentifier(name)));
  });
  const url = databaseUrl(name);
  const timeline = await PressureCostTimeline.prepare(url);
  if (o.explainMs !== undefined) await logSlowPlans(url, o.explainMs);
  let svc: ServiceProcess | undefined;
  try {
    svc = await startServiceProcess({
      entry: o.entry,
      env: {
        LOG_LEVEL: 'warn',
        DEMO_HANDLERS: 'true',
        WORKER_CONCURRENCY: String(o.workers),
        // The shared server's max_connections: readers, producer and observer come on top.
        DB_POOL_SIZE: '6',
        DATABASE_URL: url,
      },
      nodeArgs: ['--max-semi-space-size=16'],
      healthyWithinMs: 120_000,
    });
    return await withClient(url, async (c) => {
      const { rows: producerPid } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const producer = new Producer(c, o.rate, o.groups);
      timeline.start(producerPid[0].pid);
      const observer = new Client({ connectionString: url });
      await observer.connect();
      try {
        await sleep(WARM_UP_S * 1000);
        const deadBefore = await deadTuples(observer);
        const offeredBefore = producer.count;
        const { rows: startRows } = await observer.query<{ t: string }>(`SELECT clock_timestamp()::text AS t`);
        const pressureStartMs = Date.now();
        const readers = phase === 'readers' ? await repeatableReadReaders(url, o.readerNice) : undefined;
        const pressure = phase === 'xid' ? await holdXid(url) : readers;
        await sleep(o.seconds * 1000);
        const { rows: endRows } = await observer.query<{ t: string }>(`SELECT clock_timestamp()::text AS t`);
        const pressureEndMs = Date.now();
        const offered = producer.count - offeredBefore;
        const backlogAtEnd = await backlog(observer);
        const deadAfter = await deadTuples(observer);
        const readerScans = readers?.scans();
        await pressure?.release();
        await sleep(RECOVERY_S * 1000);
        const backlogAfterRecovery = await backlog(observer);
        await producer.stop();
        const [start, end] = [startRows[0].t, endRows[0].t];
        const { rows: done } = await observer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM action_attempts WHERE outcome = 'done' AND finished_at >= $1::timestamptz AND finished_at < $2::timestamptz`,
          [start, end],
        );
        const { rows: latency } = await observer.query<{ p50: number | null; p99: number | null }>(
          `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
           FROM (SELECT extract(epoch FROM coalesce(a.started_at, clock_timestamp()) - a.created_at) * 1000 AS ms
                 FROM actions AS a WHERE a.created_at >= $1::timestamptz AND a.created_at < $2::timestamptz) AS x`,
          [start, end],
        );
        const { rows: twice } = await observer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT action_id FROM action_attempts WHERE outcome = 'done' GROUP BY action_id HAVING count(*) > 1) AS d`,
        );
        const result: PressurePhaseResult = {
          label: o.label,
          phase,
          seconds: o.seconds,
          offered,
          completed: done[0].n,
          completedRatio: done[0].n / Math.max(1, offered),
          claimP50Ms: latency[0].p50 ?? 0,
          claimP99Ms: latency[0].p99 ?? 0,
          backlogAtEnd,
          backlogAfterRecovery,
          deadTuplesPerAction: (deadAfter - deadBefore) / Math.max(1, done[0].n),
          traceOk: twice[0].n === 0,
          readerScans: readerScans?.count,
          readerScanMeanMs: readerScans?.meanMs,
          costAtStart: timeline.window(pressureStartMs, pressureStartMs + COST_WINDOW_S * 1000 + 1000, pressureStartMs),
          costAtEnd: timeline.window(pressureEndMs - COST_WINDOW_S * 1000 - 1000, pressureEndMs, pressureStartMs),
        };
        log(formatPhase(result));
        for (const line of [...formatCostWindow('cost at start', result.costAtStart), ...formatCostWindow('cost at end', result.costAtEnd)]) log(line);
        return result;
      } finally {
        await producer.stop();
        await observer.end();
      }
    });
  } finally {
    await svc?.stop();
    await timeline.stop();
    await dropDatabase(name);
  }
}

function formatPhase(r: PressurePhaseResult): string {
  return [
    `${r.label.padEnd(16)} ${r.phase.padEnd(8)}`,
    `offered ${(r.offered / r.seconds).toFixed(0).padStart(4)}/s`,
    `completed ${(r.completed / r.seconds).toFixed(0).padStart(4)}/s (${(100 * r.completedRatio).toFixed(1)} %)`,
    `claim p50 ${r.claimP50Ms.toFixed(1)} ms p99 ${r.claimP99Ms.toFixed(1)} ms`,
    `backlog ${r.backlogAtEnd} at end, ${r.backlogAfterRecovery} ${RECOVERY_S} s after`,
    `dead tuples/action ${r.deadTuplesPerAction.toFixed(2)}`,
    r.traceOk ? 'trace ok' : 'DONE TWICE',
    ...(r.readerScans !== undefined ? [`reader scans ${r.readerScans} (mean ${r.readerScanMeanMs?.toFixed(1)} ms)`] : []),
  ].join('  ');
}

/** Runs the phases in order and writes bench-pressure-<label>.json. */
export async function pressureMain(argv: string[], log: (line: string) => void): Promise<PressurePhaseResult[]> {
  const o = parseOptions(argv);
  log(
    `MVCC pressure (${o.label}): ${o.rate}/s offered, ${o.workers} worker slots, ${o.groups > 0 ? `${o.groups} groups` : 'no groups'}, phases of ${o.seconds} s (+${WARM_UP_S} s warm-up, +${RECOVERY_S} s recovery)${o.readerNice !== 0 ? `, readers at nice ${o.readerNice}` : ''}`,
  );
  const results: PressurePhaseResult[] = [];
  for (const phase of o.phases) results.push(await runPhase(phase, o, log));
  writeFileSync(`bench-pressure-${o.label.replace(/\W+/g, '-')}.json`, JSON.stringify({ options: o, results }, null, 2));
  return results;
}
