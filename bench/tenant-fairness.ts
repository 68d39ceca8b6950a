import { Client } from 'pg';
import { sleep } from '../src/sleep';
import { ServiceProcess, startServiceProcess } from '../src/testing';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * Tenants from outside (docs/tenants.md; figures in bench/README.md):
 * `node dist/bench/tenant-fairness.js [--seconds=60] [--a=100000] [--only=alone,fair,off,weights]`.
 *
 * One service process (demo handlers, `instance.update` with durationMs 0,
 * WORKER_CONCURRENCY 64) per scenario, each on a database of its own:
 * - noisy neighbour: tenant A's backlog (`--a` actions, default 100 000, in
 *   10 000 groups, enqueued before the service starts), then, once the
 *   service is busy, tenant B's 100 actions in 10 groups. B's waits, enqueue
 *   to start (started_at - created_at), p50 and p99: B alone on the same
 *   instance; behind A with tenants (A and B named); behind A with fairness
 *   off (the same workload with no tenant names: one tenant, oldest first).
 *   A wait not over after 180 s is reported as such.
 * - weights: tenants of weight 3 and 1, both backlogged (80 000 actions each
 *   in 8 000 groups, actions of 100 ms: a first run of 0 ms actions drained
 *   both before the window ended, and counted the lighter one alone at the end), run
 *   for `--seconds` (default 60): the actions each started in the window after
 *   a 5 s warm-up, their ratio (3 +- 10 %), and what each still had pending at
 *   the window's end (both must have some for the ratio to mean anything).
 */

const TYPE = 'instance.update';
const SERVICE_ENV = { LOG_LEVEL: 'warn', DEMO_HANDLERS: 'true', WORKER_CONCURRENCY: '64', DB_POOL_SIZE: '8', WORKER_POLL_INTERVAL_MS: '1000' };

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/** Inserts `groups` groups of `perGroup` actions for `tenant` (null: none named), from lock id `first`. */
async function enqueue(c: Client, tenant: string | null, first: number, groups: number, perGroup: number, durationMs = 0): Promise<void> {
  await c.query(
    `INSERT INTO actions (lock_id, type, payload, tenant)
     SELECT $1::bigint + g, $2, jsonb_build_object('durationMs', $6::int), coalesce($5::text, 'default')
     FROM generate_series(0, $3::int - 1) AS g, generate_series(1, $4::int) AS i ORDER BY g, i`,
    [first, TYPE, groups, perGroup, tenant, durationMs],
  );
}

async function withService<T>(name: string, setup: (c: Client) => Promise<void>, run: (c: Client, svc: ServiceProcess) => Promise<T>): Promise<T> {
  const db = `aq_bench_tenants_${process.pid}_${name}`;
  const url = await createMigratedDatabase(db);
  try {
    await withClient(url, async (c) => {
      await setup(c);
      await c.query('ANALYZE actions');
    });
    const svc = await startServiceProcess({ env: { ...SERVICE_ENV, DATABASE_URL: url } });
    try {
      return await withClient(url, (c) => run(c, svc));
    } finally {
      await svc.stop();
    }
  } finally {
    await dropDatabase(db);
  }
}

interface Waits {
  p50: number;
  p99: number;
  done: number;
}

/** B's 100 actions (lock ids 900 000..900 009), enqueued now; waits until they all started or 180 s passed. */
async function bWaits(c: Client, tenant: string | null): Promise<Waits> {
  await enqueue(c, tenant, 900_000, 10, 10);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id >= 900000 AND started_at IS NOT NULL`);
    if (rows[0].n === 100 || Date.now() > deadline) break;
    await sleep(200);
  }
  const { rows } = await c.query<{ p50: number; p99: number; done: number }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY w) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY w) AS p99, count(*) FILTER (WHERE started) ::int AS done
     FROM (SELECT extract(epoch FROM coalesce(started_at, clock_timestamp()) - created_at)::float8 AS w, started_at IS NOT NULL AS started
           FROM actions WHERE lock_id >= 900000) AS x`,
  );
  return rows[0];
}

/** Waits until the service has started `n` actions (it is busy with A). */
async function busy(c: Client, n = 2_000): Promise<void> {
  for (;;) {
    const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE started_at IS NOT NULL`);
    if (rows[0].n >= n) return;
    await sleep(100);
  }
}

const fmt = (w: Waits) => `p50 ${w.p50.toFixed(2)} s, p99 ${w.p99.toFixed(2)} s${w.done < 100 ? ` (only ${w.done}/100 started in 180 s)` : ''}`;

async function main(): Promise<void> {
  const a = Number(arg('a') ?? 100_000);
  const seconds = Number(arg('seconds') ?? 60);
  const groupsA = Math.max(1, Math.round(a / 10));
  const only = new Set((arg('only') ?? 'alone,fair,off,weights').split(','));
  if (only.has('alone') || only.has('fair') || only.has('off')) await noisyNeighbour(a, groupsA, only);
  if (only.has('weights')) await weights(seconds);
}

/** The noisy neighbour's scenarios (file comment). */
async function noisyNeighbour(a: number, groupsA: number, only: Set<string>): Promise<void> {
  const alone = await withService(
    'alone',
    async () => undefined,
    async (c) => {
      await sleep(1_000);
      return bWaits(c, 'b');
    },
  );
  process.stdout.write(`noisy neighbour: B alone: ${fmt(alone)}\n`);
  const fair = await withService(
    'fair',
    (c) => enqueue(c, 'a', 1, groupsA, a / groupsA),
    async (c) => {
      await busy(c);
      return bWaits(c, 'b');
    },
  );
  process.stdout.write(
    `noisy neighbour: B behind A's ${a} actions, tenants named: ${fmt(fair)}; p99 ${(fair.p99 / alone.p99).toFixed(1)}x alone (issue: <= 2x)\n`,
  );
  if (!only.has('off')) return;
  const off = await withService(
    'off',
    (c) => enqueue(c, null, 1, groupsA, a / groupsA),
    async (c) => {
      await busy(c);
      return bWaits(c, null);
    },
  );
  process.stdout.write(`noisy neighbour: B behind A's ${a} actions, fairness off (no tenants): ${fmt(off)}; p99 ${(off.p99 / alone.p99).toFixed(1)}x alone\n`);
}

/** Weights 3:1 over `seconds` (file comment). */
async function weights(seconds: number): Promise<void> {
  const counts = await withService(
    'weights',
    async (c) => {
      await enqueue(c, 'heavy', 1, 8_000, 10, 100);
      await enqueue(c, 'light', 100_000, 8_000, 10, 100);
      await c.query(`INSERT INTO action_tenant_settings (tenant, weight) VALUES ('heavy', 3), ('light', 1)`);
    },
    async (c) => {
      await sleep(5_000);
      const from = (await c.query<{ t: Date }>('SELECT clock_timestamp() AS t')).rows[0].t;
      await sleep(seconds * 1000);
      const { rows } = await c.query<{ tenant: string; n: number }>(
        `SELECT tenant, count(*)::int AS n FROM actions WHERE started_at >= $1 AND started_at < $1::timestamptz + $2 * interval '1 second' GROUP BY tenant ORDER BY tenant`,
        [from, seconds],
      );
      const { rows: left } = await c.query<{ tenant: string; n: number }>(
        `SELECT tenant, count(*)::int AS n FROM actions WHERE status = 'pending' GROUP BY tenant ORDER BY tenant`,
      );
      process.stdout.write(`weights: pending at the window's end: ${left.map((r) => `${r.tenant} ${r.n}`).join(', ')}\n`);
      return Object.fromEntries(rows.map((r) => [r.tenant, r.n])) as Record<string, number>;
    },
  );
  const heavy = counts.heavy ?? 0;
  const light = counts.light ?? 0;
  process.stdout.write(
    `weights 3:1 over ${seconds} s: heavy ${heavy}, light ${light} started, ratio ${(heavy / Math.max(1, light)).toFixed(2)} (issue: 3 +- 10 %)\n`,
  );
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
