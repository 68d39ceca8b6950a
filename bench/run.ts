import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { claimSelectionSql } from './claim-selection';
import { describeFlowControlClaimCosts, flowControlClaimCosts } from './flow-control-claim';
import { AdminReadResult, adminReadsScenario } from './admin-reads';
import { herdScenario, INSTANCES } from './idle-herd';
import { COST_TABLE_HEADER, CostPerAction, CpuMeter, formatCost, PgbenchCost, pgbenchSimpleUpdateCost, processCpuUs } from './cpu-per-action';
import { PressurePhaseResult, pressureMain } from './mvcc-pressure';
import { createMigratedDatabase, dropDatabase, enqueueSql, withClient, Workload } from './bench-database';
import { checkTrace, formatTraceReport, ServiceProcess, startServiceProcess, TraceReport } from '../src/testing';
import { sleep } from '../src/sleep';

/**
 * The benchmark: `npm run bench` (full) or `npm run bench -- --quick`.
 *
 * Measures a pgbench baseline on this machine, then runs each scenario of the
 * performance issue through the real service (a separate process, demo
 * handler with durationMs 0), checks order and overlaps from the trace for
 * every run, and prints a table plus bench-results.json with a `targets`
 * array. Figures are only meaningful as ratios to the baseline of the same run.
 * `--only=admin-reads` runs only the admin reads scenario (bench/admin-reads.ts);
 * `--pressure` only the MVCC pressure scenarios (bench/mvcc-pressure.ts).
 */

const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const PGBENCH_SECONDS = quick ? 5 : 15;
// One service instance; 512 slots keep up to four finishing statements of 128 attempts in flight.
const SERVICE_ENV = { WORKER_CONCURRENCY: '512', DB_POOL_SIZE: '8', WORKER_POLL_INTERVAL_MS: '1000' };

interface ScenarioResult {
  name: string;
  actions: number;
  seconds: number;
  actionsPerSecond: number;
  ratioToBaseline?: number;
  latencyMs?: { p50: number; p95: number; p99: number };
  peakRssMb: number;
  verdict?: TraceReport;
  note?: string;
  /** CPU, commits and function calls per action (bench/cpu-per-action.ts). */
  cost?: CostPerAction;
  /** CPU time of the service process per action in µs (utime + stime from /proc), where measured. */
  serviceCpuUsPerAction?: number;
}
interface Target {
  name: string;
  measured: number;
  target: string;
  pass: boolean;
}

const results: ScenarioResult[] = [];
const targets: Target[] = [];
let dbCounter = 0;
const dbName = (label: string) => `aq_bench_${label}_${process.pid}_${dbCounter++}`;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** pgbench single-row update transactions; falls back to a node loop when pgbench is missing. */
function pgbenchTps(url: string, clients: number): { tps: number; tool: string } {
  const dir = mkdtempSync(join(tmpdir(), 'aq-bench-'));
  const script = join(dir, 'update.sql');
  writeFileSync(script, '\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n');
  const out = execFileSync('pgbench', ['-n', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(PGBENCH_SECONDS), '-f', script, url], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(out) ?? /tps = ([\d.]+)/.exec(out);
  if (!m) throw new Error(`cannot read pgbench output:\n${out}`);
  return { tps: Number(m[1]), tool: 'pgbench' };
}

async function loopTps(url: string, clients: number): Promise<{ tps: number; tool: string }> {
  const conns = await Promise.all(
    Array.from({ length: clients }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  let count = 0;
  const end = Date.now() + PGBENCH_SECONDS * 1000;
  await Promise.all(
    conns.map(async (c) => {
      while (Date.now() < end) {
        await c.query('UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = $1', [1 + Math.floor(Math.random() * 100_000)]);
        count++;
      }
    }),
  );
  await Promise.all(conns.map((c) => c.end()));
  return { tps: count / PGBENCH_SECONDS, tool: 'node loop of single-row UPDATE transactions (pgbench missing)' };
}

async function baseline(): Promise<{ one: number; sixteen: number; tool: string; simpleUpdate?: PgbenchCost }> {
  const name = dbName('pgbench');
  const url = await createMigratedDatabase(name);
  try {
    let hasPgbench = true;
    try {
      execFileSync('pgbench', ['-i', '-s', '1', '-q', url], { stdio: 'ignore' });
    } catch {
      hasPgbench = false;
      await withClient(url, async (c) => {
        await c.query('CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, abalance int NOT NULL DEFAULT 0, filler char(84))');
        await c.query('INSERT INTO pgbench_accounts (aid) SELECT generate_series(1, 100000)');
      });
    }
    const run = (clients: number) => (hasPgbench ? Promise.resolve(pgbenchTps(url, clients)) : loopTps(url, clients));
    const one = await run(1);
    const sixteen = await run(16);
    const simpleUpdate = hasPgbench ? await pgbenchSimpleUpdateCost(url, PGBENCH_SECONDS) : undefined;
    return { one: one.tps, sixteen: sixteen.tps, tool: one.tool, simpleUpdate };
  } finally {
    await dropDatabase(name);
  }
}

/**
 * The service for one scenario, as its own process, with its memory sampled.
 * It runs with the same V8 flag as `npm start` (semi-space 16 MB: bench/README.md, "Peak RSS");
 * BENCH_NODE_ARGS replaces it, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 * BENCH_SERVICE_ENTRY runs another build (e.g. an older commit's
 * dist/src/main.js), to alternate old and new code in one session.
 */
function startBenchService(databaseUrl: string, env: Record<string, string>, healthyWithinMs?: number): Promise<ServiceProcess> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '--max-semi-space-size=16').split(' ').filter(Boolean);
  return startServiceProcess({
    entry: process.env.BENCH_SERVICE_ENTRY || undefined,
    env: { LOG_LEVEL: 'warn', DEMO_HANDLERS: 'true', ...env, DATABASE_URL: databaseUrl },
    nodeArgs,
    sampleRss: true,
    healthyWithinMs,
  });
}

/** Enqueues the workloads up front, starts the service, waits for all to finish, checks the trace. */
export async function processingScenario(name: string, workloads: Workload[], measureLockFilter?: string): Promise<ScenarioResult> {
  const db = dbName(name.replace(/\W+/g, '_').slice(0, 20));
  const url = await createMigratedDatabase(db);
  try {
    const total = await withClient(url, async (c) => {
      for (const w of workloads) await enqueueSql(c, w);
      await c.query('ANALYZE actions');
      return workloads.reduce((n, w) => n + w.count, 0);
    });
    const meter = await CpuMeter.start(url);
    // Not waiting for health here: the meter must see the process before it starts working.
    const svc = await startBenchService(url, SERVICE_ENV, 0);
    try {
      meter.watchService(svc.child.pid!);
      await svc.healthy();
      for (;;) {
        const rows = await meter.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status IN ('pending', 'running')`);
        if (rows[0].n === 0) break;
        await sleep(100);
      }
    } finally {
      await svc.stop();
      await meter.stop();
    }
    return await withClient(url, async (c) => {
      const filter = measureLockFilter ? `WHERE ${measureLockFilter}` : '';
      const { rows } = await c.query(
        `SELECT count(DISTINCT action_id)::int AS n, extract(epoch FROM max(finished_at) - min(started_at))::float8 AS s,
                extract(epoch FROM min(started_at))::float8 * 1000 AS from_ms, extract(epoch FROM max(finished_at))::float8 * 1000 AS to_ms
         FROM action_attempts ${filter}`,
      );
      const verdict = await checkTrace(c);
      const seconds = rows[0].s;
      const actions = measureLockFilter ? rows[0].n : total;
      return {
        name,
        actions,
        seconds,
        actionsPerSecond: rows[0].n / seconds,
        peakRssMb: svc.peakRss() / 2 ** 20,
        verdict,
        cost: await meter.costPerAction(total, rows[0].from_ms, rows[0].to_ms),
      };
    });
  } finally {
    await dropDatabase(db);
  }
}

/** SQL insert commit → handler start, one action at a time, driven by LISTEN/NOTIFY (poll set to 60 s). */
export async function latencyScenario(samples: number): Promise<ScenarioResult> {
  const db = dbName('latency');
  const url = await createMigratedDatabase(db);
  const svc = await startBenchService(url, { ...SERVICE_ENV, WORKER_POLL_INTERVAL_MS: '60000' });
  try {
    const latencies = await withClient(url, async (c) => {
      const out: number[] = [];
      for (let i = 0; i < samples + 10; i++) {
        const { rows } = await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.update', '{"durationMs": 0}') RETURNING id`, [
          i % 7,
        ]);
        const committedAt = performance.timeOrigin + performance.now();
        let startedAt: number | null = null;
        while (startedAt === null) {
          const r = await c.query(`SELECT extract(epoch FROM started_at)::float8 * 1000 AS ms FROM action_attempts WHERE action_id = $1`, [rows[0].id]);
          if (r.rows.length > 0) startedAt = r.rows[0].ms;
          else await sleep(2);
        }
        if (i >= 10) out.push(Math.max(0, (startedAt as number) - committedAt)); // first 10 warm up
      }
      return out;
    });
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    const verdict = await withClient(url, (c) => checkTrace(c));
    return {
      name: 'latency (SQL commit to handler start)',
      actions: samples,
      seconds: 0,
      actionsPerSecond: 0,
      latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99) },
      peakRssMb: svc.peakRss() / 2 ** 20,
      verdict,
    };
  } finally {
    await svc.stop();
    await dropDatabase(db);
  }
}

/** Time (ms) of one claim statement, rolled back. */
async function claimStatementOnceMs(c: Client): Promise<number> {
  await c.query('BEGIN');
  const t = performance.now();
  await c.query({ ...CLAIM_ACTIONS_SQL, values: ['bench', ['instance.update'], [null], 16, 30_000, false] });
  const ms = performance.now() - t;
  await c.query('ROLLBACK');
  return ms;
}

/**
 * Median claim statement times (ms) on two databases, over `n` runs each,
 * alternating between them so that a drift of the machine's speed during the
 * measurement affects both alike.
 */
async function claimStatementMedians(a: Client, b: Client, n: number): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    ta.push(await claimStatementOnceMs(a));
    tb.push(await claimStatementOnceMs(b));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(ta), median(tb)];
}

/** Rows of the SQL enqueue target: one `INSERT … SELECT` into {@link SQL_INSERT_GROUPS} groups. */
const SQL_INSERT_ROWS = 100_000;
const SQL_INSERT_GROUPS = 1_000;

/**
 * The SQL enqueue target's statement: one `INSERT … SELECT` of 100 000 rows
 * into 1 000 new groups (lock ids 1 000 000…, row i into group i % 1 000, so
 * the groups take turns), through every insert trigger. Returns rows per
 * second of wall time, the inserting backend's CPU time per row in µs
 * (utime + stime of its /proc/<pid>/stat, clock ticks of 10 ms: ±0.1 µs per
 * row at this size; the database server must be on this machine, else NaN)
 * and whether each group then has exactly one head.
 *
 * @param c a client on a migrated database with no actions in those groups.
 */
async function sqlInsertSelect(c: Client): Promise<{ rowsPerSec: number; cpuUsPerRow: number; headsOk: boolean }> {
  const pid: number = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const cpuBefore = processCpuUs(pid);
  const started = performance.now();
  await c.query(
    `INSERT INTO actions (lock_id, type, payload)
     SELECT 1000000 + i % ${SQL_INSERT_GROUPS}, 'instance.update', '{}'::jsonb FROM generate_series(1, ${SQL_INSERT_ROWS}) AS i ORDER BY i`,
  );
  const rowsPerSec = SQL_INSERT_ROWS / ((performance.now() - started) / 1000);
  const cpuAfter = processCpuUs(pid);
  const cpuUsPerRow = cpuBefore === null || cpuAfter === null ? NaN : (cpuAfter - cpuBefore) / SQL_INSERT_ROWS;
  const heads = await c.query(
    `SELECT count(*) FILTER (WHERE h <> 1)::int AS bad, count(*)::int AS groups FROM (
       SELECT lock_id, count(*) FILTER (WHERE is_head) AS h FROM actions WHERE lock_id >= 1000000 GROUP BY lock_id) g`,
  );
  return { rowsPerSec, cpuUsPerRow, headsOk: heads.rows[0].bad === 0 && heads.rows[0].groups === SQL_INSERT_GROUPS };
}

/** The SQL enqueue target alone (`--only=enqueue`): a fresh database holding 10 000 actions, then {@link sqlInsertSelect}. */
async function sqlEnqueueScenario(): Promise<{ rowsPerSec: number; cpuUsPerRow: number; headsOk: boolean }> {
  const db = dbName('sql_enqueue');
  const url = await createMigratedDatabase(db);
  try {
    return await withClient(url, async (c) => {
      // What the scale scenario holds at that point: half in one deep group, half in groups of 10.
      await c.query(
        `INSERT INTO actions (lock_id, type, payload)
         SELECT CASE WHEN i % 2 = 0 THEN 0 ELSE 1 + (i / 20) END, 'instance.update', '{}'::jsonb
         FROM generate_series(1, 10000) AS i ORDER BY i`,
      );
      await c.query('ANALYZE actions');
      return await sqlInsertSelect(c);
    });
  } finally {
    await dropDatabase(db);
  }
}

/** The SQL enqueue target: ≥ 50 000 rows/s, or (the machine's speed drifts) ≤ 20 µs of the inserting backend's CPU per row; heads correct either way. */
function addSqlEnqueueTarget(insert: { rowsPerSec: number; cpuUsPerRow: number; headsOk: boolean }): void {
  addTarget(
    'SQL INSERT ... SELECT 100 000 rows into 1 000 groups >= 50 000 rows/s or <= 20 µs database CPU per row (heads correct)',
    insert.rowsPerSec,
    `>= 50000 rows/s or <= 20 µs/row (measured ${insert.cpuUsPerRow.toFixed(1)} µs/row)`,
    (insert.rowsPerSec >= 50_000 || insert.cpuUsPerRow <= 20) && insert.headsOk,
  );
}

/** Claim time at 10 000 vs 1 000 000 pending (half in one group); also SQL enqueue rate. */
export async function scaleScenario(): Promise<{
  small: number;
  large: number;
  plan: string;
  promotePlan: string;
  insertRowsPerSec: number;
  insertCpuUsPerRow: number;
  headsOk: boolean;
}> {
  const db = dbName('scale');
  const smallDb = dbName('scale_small');
  const url = await createMigratedDatabase(db);
  const smallUrl = await createMigratedDatabase(smallDb);
  try {
    // Half in one deep group (lock 0), half spread over groups of 10.
    const fill = async (c: Client, n: number) => {
      await c.query(
        `INSERT INTO actions (lock_id, type, payload)
         SELECT CASE WHEN i % 2 = 0 THEN 0 ELSE 1 + (i / 20) END, 'instance.update', '{}'::jsonb
         FROM generate_series(1, $1::int) AS i ORDER BY i`,
        [n],
      );
      await c.query('ANALYZE actions');
    };
    return await withClient(smallUrl, (small) =>
      withClient(url, async (c) => {
        await fill(small, 10_000);
        await fill(c, 10_000);
        const insert = await sqlInsertSelect(c);
        await fill(c, 1_000_000 - 110_000);
        await c.query('VACUUM ANALYZE actions');
        await small.query('VACUUM ANALYZE actions');
        const [smallMs, largeMs] = await claimStatementMedians(small, c, 200);
        await c.query('BEGIN');
        const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${claimSelectionSql()}`, [['instance.update'], 16])).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        await c.query('ROLLBACK');
        const promotePlan = // The lookup aq_promote_groups runs for each released group (here: the deep one).
          (
            await c.query(`EXPLAIN (ANALYZE, COSTS OFF)
            SELECT a.id FROM actions AS a
            WHERE a.lock_id = 0 AND a.holds_group AND a.lock_id IS NOT NULL
              AND a.id > (SELECT min(id) FROM actions WHERE lock_id = 0 AND holds_group)
            ORDER BY a.lock_id, a.id LIMIT 1`)
          ).rows
            .map((r) => r['QUERY PLAN'])
            .join('\n');
        return {
          small: smallMs,
          large: largeMs,
          plan,
          promotePlan,
          insertRowsPerSec: insert.rowsPerSec,
          insertCpuUsPerRow: insert.cpuUsPerRow,
          headsOk: insert.headsOk,
        };
      }),
    );
  } finally {
    await dropDatabase(db);
    await dropDatabase(smallDb);
  }
}

/** POST /actions/batch with 1 000 actions per request, 20 requests, 4 at a time. */
export async function restEnqueueScenario(): Promise<ScenarioResult> {
  const db = dbName('rest');
  const url = await createMigratedDatabase(db);
  const svc = await startBenchService(url, { ...SERVICE_ENV, WORKER_ENABLED: 'false' });
  try {
    const batches = 20;
    const body = (b: number) =>
      JSON.stringify({
        actions: Array.from({ length: 1000 }, (_, i) => ({ lockId: String((b * 1000 + i) % 1000), type: 'instance.update', payload: { durationMs: 0, n: i } })),
      });
    const bodies = Array.from({ length: batches }, (_, b) => body(b));
    await fetch(`${svc.url}/actions/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(999) }); // warm-up
    const cpuBefore = processCpuUs(svc.child.pid!);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (next < batches) {
          const res = await fetch(`${svc.url}/actions/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[next++] });
          if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = processCpuUs(svc.child.pid!);
    return {
      name: 'enqueue: POST /actions/batch (1 000 per request)',
      actions: batches * 1000,
      seconds,
      actionsPerSecond: (batches * 1000) / seconds,
      peakRssMb: svc.peakRss() / 2 ** 20,
      serviceCpuUsPerAction: cpuBefore === null || cpuAfter === null ? undefined : (cpuAfter - cpuBefore) / (batches * 1000),
    };
  } finally {
    await svc.stop();
    await dropDatabase(db);
  }
}

function addTarget(name: string, measured: number, target: string, pass: boolean): void {
  targets.push({ name, measured: Math.round(measured * 100) / 100, target, pass });
}

/** `/stats`, `/metrics` and the dashboard's routes at 10 000 and 1 000 000 finished actions: each within 2x. */
async function runAdminReads(): Promise<AdminReadResult[]> {
  const reads = await adminReadsScenario((url) => startBenchService(url, { ...SERVICE_ENV, WORKER_ENABLED: 'false' }), log);
  for (const r of reads) {
    addTarget(
      `admin read ${r.route}: 1 000 000 finished <= 2 x 10 000 finished (ms)`,
      r.largeMs,
      `<= ${(2 * r.smallMs).toFixed(3)}`,
      r.largeMs <= 2 * r.smallMs,
    );
  }
  return reads;
}

function logAdminReads(reads: AdminReadResult[]): void {
  log('Admin reads, median ms per request (API-only service, loopback, alternating):');
  log(`  ${'route'.padEnd(40)} ${'10 000 finished'.padStart(16)} ${'1 000 000 finished'.padStart(19)} ${'ratio'.padStart(7)}`);
  for (const r of reads)
    log(`  ${r.route.padEnd(40)} ${r.smallMs.toFixed(2).padStart(16)} ${r.largeMs.toFixed(2).padStart(19)} ${r.ratio.toFixed(2).padStart(7)}`);
}

/** pgbench -N's cost per transaction, the mean of two runs (before and after the scenarios). */
function meanPgbenchCost(a: PgbenchCost | undefined, b: PgbenchCost | undefined): PgbenchCost | undefined {
  if (!a || !b) return a ?? b;
  return { ...a, tps: (a.tps + b.tps) / 2, databaseCpuUs: (a.databaseCpuUs + b.databaseCpuUs) / 2 };
}

/** Targets of the machine-independent figures: wide CPU per action within one pgbench -N transaction, commits per action. */
function addCostTargets(wide: ScenarioResult, pgbench: PgbenchCost | undefined): void {
  if (!wide.cost || !pgbench) return;
  const cpu = wide.cost.databaseCpuUs + wide.cost.serviceCpuUs;
  addTarget(
    'wide: database + service CPU per action <= 1.0 x pgbench -N transaction (µs)',
    cpu,
    `<= ${pgbench.databaseCpuUs.toFixed(1)}`,
    cpu <= pgbench.databaseCpuUs,
  );
  addTarget('wide: commits per action <= 0.05 (512 slots)', wide.cost.commits, '<= 0.05', wide.cost.commits <= 0.05);
}

/**
 * `--only=cost`: the machine-independent figures alone (about a minute with
 * --quick): pgbench -N, the wide, ungrouped and deep-group scenarios, pgbench -N again.
 */
async function runCostOnly(): Promise<void> {
  const pgbench = async () => {
    const name = dbName('pgbench_n');
    const url = await createMigratedDatabase(name);
    try {
      execFileSync('pgbench', ['-i', '-s', '1', '-q', url], { stdio: 'ignore' });
      return await pgbenchSimpleUpdateCost(url, PGBENCH_SECONDS);
    } finally {
      await dropDatabase(name);
    }
  };
  const before = await pgbench();
  const wide = await processingScenario('wide: 20 000 actions, 2 000 groups of 10', [{ count: 20_000, lockExpr: 'i % 2000' }]);
  const ungrouped = await processingScenario('ungrouped: 20 000 actions, no lockId', [{ count: 20_000, lockExpr: 'NULL::bigint' }]);
  const deep = await processingScenario('single deep group: 5 000 actions', [{ count: 5_000, lockExpr: '0' }]);
  const after = await pgbench();
  const cost = meanPgbenchCost(before, after)!;
  const scenarios = [wide, ungrouped, deep];
  for (const r of scenarios) log(`${r.name}: ${r.actionsPerSecond.toFixed(0)} actions/s, trace ${r.verdict?.ok ? 'ok' : 'BAD'}`);
  log(`pgbench -N, 1 client: ${before.tps.toFixed(0)} / ${after.tps.toFixed(0)} tps (before / after)`);
  logCosts(scenarios, cost);
  addCostTargets(wide, cost);
  for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
  writeFileSync('bench-results.json', JSON.stringify({ mode: 'cost', pgbenchSimpleUpdate: { before, after }, scenarios, targets }, null, 2));
  process.exitCode = targets.every((t) => t.pass) && scenarios.every((r) => r.verdict?.ok) ? 0 : 1;
}

/** The single hot group in ordered chunks of 50 (the demo's instance.sync). */
const CHUNKED_DEEP_NAME = 'single deep group, chunks of 50: 20 000 actions';

/** The targets of a single hot group, with and without chunks, against pgbench's 1-client tps of the same run. */
function addChunkTargets(deep: ScenarioResult, chunked: ScenarioResult, pgbenchOne: number): void {
  addTarget(
    'single deep group without chunks >= 0.3 x pgbench 1-client tps',
    deep.actionsPerSecond,
    `>= ${(0.3 * pgbenchOne).toFixed(0)}`,
    deep.actionsPerSecond >= 0.3 * pgbenchOne,
  );
  addTarget(
    'single deep group in chunks of 50 >= 5 x pgbench 1-client tps',
    chunked.actionsPerSecond,
    `>= ${(5 * pgbenchOne).toFixed(0)}`,
    chunked.actionsPerSecond >= 5 * pgbenchOne,
  );
}

/**
 * `--only=chunks`: a single hot group one action at a time and in ordered
 * chunks of 50, between two runs of pgbench with one client (its tps is the
 * baseline), with the cost per action of each.
 */
async function runChunksOnly(): Promise<void> {
  const pgbenchOne = async () => {
    const name = dbName('pgbench_1');
    const url = await createMigratedDatabase(name);
    try {
      execFileSync('pgbench', ['-i', '-s', '1', '-q', url], { stdio: 'ignore' });
      return { tps: pgbenchTps(url, 1).tps, cost: await pgbenchSimpleUpdateCost(url, PGBENCH_SECONDS) };
    } finally {
      await dropDatabase(name);
    }
  };
  const before = await pgbenchOne();
  const deep = await processingScenario('single deep group: 5 000 actions', [{ count: 5_000, lockExpr: '0' }]);
  const chunked = await processingScenario(CHUNKED_DEEP_NAME, [{ count: 20_000, lockExpr: '0', type: 'instance.sync' }]);
  const after = await pgbenchOne();
  const one = (before.tps + after.tps) / 2;
  log(`service: ${process.env.BENCH_SERVICE_ENTRY || 'this build'}`);
  log(`pgbench 1 client: ${before.tps.toFixed(0)} / ${after.tps.toFixed(0)} tps (before / after)`);
  for (const r of [deep, chunked]) {
    log(`${r.name}: ${r.actionsPerSecond.toFixed(0)} actions/s = ${(r.actionsPerSecond / one).toFixed(2)} x pgbench-1, trace ${r.verdict?.ok ? 'ok' : 'BAD'}`);
  }
  logCosts([deep, chunked], meanPgbenchCost(before.cost, after.cost));
  addChunkTargets(deep, chunked, one);
  for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
  writeFileSync('bench-results.json', JSON.stringify({ mode: 'chunks', pgbenchOne: { before, after }, scenarios: [deep, chunked], targets }, null, 2));
  process.exitCode = targets.every((t) => t.pass) && [deep, chunked].every((r) => r.verdict?.ok) ? 0 : 1;
}

/** `--only=herd`: one instance and then eight, a trickle of actions (bench/idle-herd.ts). */
async function runHerdOnly(): Promise<void> {
  const one = await herdScenario(1, {});
  const herd = await herdScenario(INSTANCES, {});
  log(`service: ${process.env.BENCH_SERVICE_ENTRY || 'this build'}`);
  log(
    `${'instances'.padEnd(10)} ${'claims/action'.padStart(14)} ${'commits/action'.padStart(15)} ${'db µs'.padStart(8)} ${'svc µs'.padStart(8)} ${'total µs'.padStart(9)} ${'median ms'.padStart(10)}`,
  );
  for (const r of [one, herd]) {
    const total = r.cost.databaseCpuUs + r.cost.serviceCpuUs;
    log(
      `${String(r.instances).padEnd(10)} ${r.claimsPerAction.toFixed(2).padStart(14)} ${r.cost.commits.toFixed(2).padStart(15)} ${r.cost.databaseCpuUs.toFixed(0).padStart(8)} ${r.cost.serviceCpuUs.toFixed(0).padStart(8)} ${total.toFixed(0).padStart(9)} ${r.medianMs.toFixed(2).padStart(10)}`,
    );
  }
  const ratio = (herd.cost.databaseCpuUs + herd.cost.serviceCpuUs) / (one.cost.databaseCpuUs + one.cost.serviceCpuUs);
  addTarget(`${INSTANCES} idle instances, trickle: claim statements per action <= 1.5`, herd.claimsPerAction, '<= 1.5', herd.claimsPerAction <= 1.5);
  addTarget(`${INSTANCES} instances: CPU per action <= 1.5 x one instance`, ratio, '<= 1.5', ratio <= 1.5);
  for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
  writeFileSync('bench-results.json', JSON.stringify({ mode: 'herd', herd: [one, herd], targets }, null, 2));
  process.exitCode = targets.every((t) => t.pass) ? 0 : 1;
}

/** The machine-independent figures: CPU, commits and hot calls per action beside pgbench -N's transaction. */
function logCosts(scenarios: ScenarioResult[], pgbench: PgbenchCost | undefined): void {
  if (!pgbench) return log('\nCPU per action: not measured (pgbench missing)');
  log('');
  log(
    `CPU per action (µs; database: the service's backends; × pgb-N: database + service over one pgbench -N transaction's backend CPU, ${pgbench.databaseCpuUs.toFixed(1)} µs at ${pgbench.tps.toFixed(0)} tps, 1 commit, ${pgbench.statements} statements):`,
  );
  log(COST_TABLE_HEADER);
  for (const r of scenarios) if (r.cost) log(formatCost(r.name, r.cost, pgbench.databaseCpuUs));
}

/** `--only=enqueue`: the two enqueue targets alone (`POST /actions/batch`, SQL `INSERT … SELECT`), about 30 s. */
async function runEnqueueOnly(): Promise<void> {
  const rest = await restEnqueueScenario();
  const sql = await sqlEnqueueScenario();
  addTarget('POST /actions/batch >= 20 000 actions/s', rest.actionsPerSecond, '>= 20000', rest.actionsPerSecond >= 20_000);
  addSqlEnqueueTarget(sql);
  log(`POST /actions/batch: ${rest.actionsPerSecond.toFixed(0)} actions/s, service CPU ${rest.serviceCpuUsPerAction?.toFixed(1) ?? '?'} µs per action`);
  log(
    `SQL INSERT ... SELECT of 100 000 rows into 1 000 groups: ${sql.rowsPerSec.toFixed(0)} rows/s, ${sql.cpuUsPerRow.toFixed(1)} µs of database CPU per row, one head per group: ${sql.headsOk}`,
  );
  for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
  writeFileSync('bench-results.json', JSON.stringify({ mode: 'enqueue', rest, sql, targets }, null, 2));
  process.exitCode = targets.every((t) => t.pass) ? 0 : 1;
}

async function main(): Promise<void> {
  log(`Ordered action queue benchmark (${quick ? 'quick' : 'full'}) on ${process.platform}, node ${process.version}`);
  if (process.argv.includes('--pressure')) {
    const phases = await pressureMain(process.argv, log);
    // The bar: >= 95 % of the offered rate, pickup p99 <= 1 s, the backlog gone 30 s after the
    // pressure (no more than one second of arrivals left: those the workers are still taking), no action done twice.
    const pass = (p: PressurePhaseResult): boolean =>
      p.completedRatio >= 0.95 && p.claimP99Ms <= 1000 && p.backlogAfterRecovery <= p.offered / p.seconds && p.traceOk;
    for (const p of phases)
      log(`  ${pass(p) ? 'PASS' : 'FAIL'}  ${p.label} ${p.phase}: completed >= 95 % of offered, pickup p99 <= 1 s, backlog gone 30 s after, none done twice`);
    process.exitCode = phases.every(pass) ? 0 : 1;
    return;
  }
  if (only === 'admin-reads') {
    const reads = await runAdminReads();
    logAdminReads(reads);
    for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
    writeFileSync('bench-results.json', JSON.stringify({ mode: 'admin-reads', adminReads: reads, targets }, null, 2));
    process.exitCode = targets.every((t) => t.pass) ? 0 : 1;
    return;
  }
  if (only === 'enqueue') return runEnqueueOnly();
  if (only === 'cost') return runCostOnly();
  if (only === 'chunks') return runChunksOnly();
  if (only === 'herd') return runHerdOnly();
  if (only !== undefined) throw new Error(`--only=${only}: the scenarios that run alone are admin-reads, cost, chunks, herd and enqueue`);
  // The baseline brackets the processing scenarios: on a shared machine the
  // speed drifts within a run, so the ratios use the mean of both readings and
  // the drift is printed next to them.
  const before = await baseline();
  log(
    `Baseline before (${before.tool}, single-row UPDATE transactions, ${PGBENCH_SECONDS} s): 1 client ${before.one.toFixed(0)} tps, 16 clients ${before.sixteen.toFixed(0)} tps`,
  );

  const wide = await processingScenario('wide: 20 000 actions, 2 000 groups of 10', [{ count: 20_000, lockExpr: 'i % 2000' }]);
  const ungrouped = await processingScenario('ungrouped: 20 000 actions, no lockId', [{ count: 20_000, lockExpr: 'NULL::bigint' }]);
  const many = await processingScenario('many groups: 20 000 actions, one per group', [{ count: 20_000, lockExpr: 'i' }]);
  const othersAlone = await processingScenario('others alone: 10 000 actions, 1 000 groups of 10', [{ count: 10_000, lockExpr: '1 + i % 1000' }]);
  const withDeep = await processingScenario(
    'others beside a deep group (10 000 in group 0)',
    [
      { count: 10_000, lockExpr: '0' },
      { count: 10_000, lockExpr: '1 + i % 1000' },
    ],
    'lock_id <> 0',
  );
  const deep = await processingScenario('single deep group: 10 000 actions', [{ count: 10_000, lockExpr: '0' }]);
  const chunked = await processingScenario(CHUNKED_DEEP_NAME, [{ count: 20_000, lockExpr: '0', type: 'instance.sync' }]);

  const after = await baseline();
  log(`Baseline after: 1 client ${after.one.toFixed(0)} tps, 16 clients ${after.sixteen.toFixed(0)} tps`);
  const base = { one: (before.one + after.one) / 2, sixteen: (before.sixteen + after.sixteen) / 2, tool: before.tool, before, after };
  const latency = await latencyScenario(200);
  const rest = await restEnqueueScenario();
  const scale = await scaleScenario();
  const adminReads = await runAdminReads();
  const flowRounds = quick ? 2 : 5;
  const flowClaim = await flowControlClaimCosts(flowRounds);

  for (const r of [wide, ungrouped, many, othersAlone, withDeep, deep]) r.ratioToBaseline = r.actionsPerSecond / base.sixteen;
  for (const r of [deep, chunked]) {
    r.ratioToBaseline = r.actionsPerSecond / base.one;
    r.note = 'ratio to pgbench 1 client';
  }
  results.push(wide, ungrouped, many, othersAlone, withDeep, deep, chunked, latency, rest);

  addTarget('wide >= pgbench 16-client tps', wide.actionsPerSecond, `>= ${base.sixteen.toFixed(0)}`, wide.actionsPerSecond >= base.sixteen);
  addTarget('ungrouped >= wide', ungrouped.actionsPerSecond, `>= ${wide.actionsPerSecond.toFixed(0)}`, ungrouped.actionsPerSecond >= wide.actionsPerSecond);
  addTarget(
    'many groups >= 0.9 x ungrouped',
    many.actionsPerSecond,
    `>= ${(0.9 * ungrouped.actionsPerSecond).toFixed(0)}`,
    many.actionsPerSecond >= 0.9 * ungrouped.actionsPerSecond,
  );
  addTarget(
    'others beside a deep group >= 0.9 x others alone',
    withDeep.actionsPerSecond,
    `>= ${(0.9 * othersAlone.actionsPerSecond).toFixed(0)}`,
    withDeep.actionsPerSecond >= 0.9 * othersAlone.actionsPerSecond,
  );
  addTarget(
    'single deep group >= 0.5 x pgbench 1-client tps',
    deep.actionsPerSecond,
    `>= ${(0.5 * base.one).toFixed(0)}`,
    deep.actionsPerSecond >= 0.5 * base.one,
  );
  addChunkTargets(deep, chunked, base.one);
  addTarget('latency p50 <= 1.5 ms', latency.latencyMs!.p50, '<= 1.5', latency.latencyMs!.p50 <= 1.5);
  addTarget('latency p99 <= 5 ms', latency.latencyMs!.p99, '<= 5', latency.latencyMs!.p99 <= 5);
  addTarget('claim time at 1 000 000 pending <= 1.5 x at 10 000 (ms)', scale.large, `<= ${(1.5 * scale.small).toFixed(3)}`, scale.large <= 1.5 * scale.small);
  const peak = Math.max(...results.map((r) => r.peakRssMb));
  addTarget('service peak RSS < 256 MB (all scenarios)', peak, '< 256', peak < 256);
  addTarget('POST /actions/batch >= 20 000 actions/s', rest.actionsPerSecond, '>= 20000', rest.actionsPerSecond >= 20_000);
  addSqlEnqueueTarget({ rowsPerSec: scale.insertRowsPerSec, cpuUsPerRow: scale.insertCpuUsPerRow, headsOk: scale.headsOk });
  addCostTargets(wide, meanPgbenchCost(before.simpleUpdate, after.simpleUpdate));
  const allOrdered = results.every((r) => !r.verdict || r.verdict.ok);
  addTarget('order checker: zero violations in every run', allOrdered ? 0 : 1, '0', allOrdered);

  log('');
  log(`Baseline used for ratios (mean of before and after): 1 client ${base.one.toFixed(0)} tps, 16 clients ${base.sixteen.toFixed(0)} tps`);
  log('scenario                                              actions   seconds   actions/s   ratio   p50/p95/p99 ms      RSS MB  trace');
  for (const r of results) {
    const lat = r.latencyMs ? `${r.latencyMs.p50.toFixed(2)}/${r.latencyMs.p95.toFixed(2)}/${r.latencyMs.p99.toFixed(2)}` : '-';
    const v = r.verdict ? (r.verdict.ok ? 'ok' : `BAD\n${formatTraceReport(r.verdict)}`) : '-';
    log(
      `${r.name.padEnd(52)} ${String(r.actions).padStart(8)} ${r.seconds.toFixed(2).padStart(9)} ${r.actionsPerSecond.toFixed(0).padStart(11)} ${(r.ratioToBaseline ?? 0).toFixed(2).padStart(7)}   ${lat.padEnd(18)} ${r.peakRssMb.toFixed(0).padStart(6)}  ${v}`,
    );
  }
  logCosts(results, meanPgbenchCost(before.simpleUpdate, after.simpleUpdate));
  log('');
  log(`Claim statement median: ${scale.small.toFixed(3)} ms at 10 000 pending, ${scale.large.toFixed(3)} ms at 1 000 000 pending (half in one group)`);
  for (const line of describeFlowControlClaimCosts(flowClaim, flowRounds)) log(line);
  log(
    `SQL INSERT ... SELECT of 100 000 rows into 1 000 groups: ${scale.insertRowsPerSec.toFixed(0)} rows/s, ${scale.insertCpuUsPerRow.toFixed(1)} µs of database CPU per row, one head per group: ${scale.headsOk}`,
  );
  log('');
  logAdminReads(adminReads);
  log('');
  log('EXPLAIN of the claim statement at 1 000 000 pending:');
  log(scale.plan);
  log('');
  log('EXPLAIN of the promotion lookup (next head of the deep group):');
  log(scale.promotePlan);
  log('');
  log('Targets:');
  for (const t of targets) log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: measured ${t.measured}, target ${t.target}`);
  writeFileSync(
    'bench-results.json',
    JSON.stringify(
      {
        mode: quick ? 'quick' : 'full',
        baseline: base,
        scenarios: results,
        claimMs: { at10k: scale.small, at1m: scale.large },
        flowControlClaimMs: flowClaim,
        adminReads,
        targets,
      },
      null,
      2,
    ),
  );
  log('\nWrote bench-results.json');
  process.exitCode = targets.every((t) => t.pass) ? 0 : 1;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
