import { Client } from 'pg';
import { ServiceProcess } from '../src/testing/service-process';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * Admin reads at two history sizes: `GET /stats`, `/metrics` and the
 * dashboard's data routes against a database keeping 10 000 finished actions
 * and one keeping 1 000 000, with the same live queue in both (pending groups,
 * a deep group, blocked groups, scheduled actions, the same endings in the
 * last 15 minutes). Each route's median time on the larger must be within 2x
 * of the smaller. The two services (API only) are measured alternately,
 * request by request, so that the machine's drift falls on both alike.
 */

/** One route's medians (ms) at the two sizes. */
export interface AdminReadResult {
  route: string;
  smallMs: number;
  largeMs: number;
  ratio: number;
}

const SMALL_HISTORY = 10_000;
const LARGE_HISTORY = 1_000_000;
/** Endings in the last 15 minutes, the same in both databases (the activity charts read them). */
const RECENT_ENDINGS = 3_000;
const REQUESTS_PER_ROUTE = 60;
/** The group whose timeline is read: 200 recent finished actions and 10 pending in both databases (plus older history in the larger). */
const TIMELINE_GROUP = 42;

/**
 * The live queue, the same in both databases, written through the triggers:
 * 20 groups of 10 pending (each of its own tenant, so that /stats and /metrics
 * have 21 tenants to rank), a group of 2 000 pending, 50 blocked groups (a
 * failed head and 3 waiting) and 20 actions scheduled a day ahead.
 */
async function fillLiveQueue(c: Client): Promise<void> {
  await c.query(
    `INSERT INTO actions (lock_id, type, payload, tenant) SELECT 100000 + i % 20, 'instance.update', '{}', 'tenant-' || i % 20 FROM generate_series(1, 200) AS i ORDER BY i`,
  );
  await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT 200000, 'instance.update', '{}' FROM generate_series(1, 2000) AS i ORDER BY i`);
  await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT ${TIMELINE_GROUP}, 'instance.update', '{}' FROM generate_series(1, 10) AS i ORDER BY i`);
  await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT 300000 + i % 50, 'instance.delete', '{}' FROM generate_series(0, 199) AS i ORDER BY i`);
  await c.query(
    `UPDATE actions SET status = 'failed', attempts = 5, finished_at = now() - interval '1 hour', last_error = 'cloud API answered 503'
     WHERE lock_id BETWEEN 300000 AND 300049 AND is_head`,
  );
  await c.query(`INSERT INTO actions (type, payload, run_at) SELECT 'instance.create', '{}', now() + interval '1 day' FROM generate_series(1, 20)`);
}

/**
 * Finished history written directly, triggers off (a bulk load, as a restore
 * would): 90 % done, 5 % cancelled, 5 % failed under `skip`, in 10 000 groups,
 * finished over the last 30 days except RECENT_ENDINGS in the last 15 minutes,
 * each with one trace row.
 */
export async function fillHistory(c: Client, count: number): Promise<void> {
  await c.query('SET session_replication_role = replica');
  await c.query(
    `INSERT INTO actions (id, lock_id, type, payload, status, is_head, holds_group, attempts, charged_attempts, on_failure,
                          run_at, created_at, started_at, finished_at, result, last_error)
     SELECT nextval('actions_id_seq'), CASE WHEN i <= 200 THEN ${TIMELINE_GROUP} ELSE i % 10000 END, 'instance.update', '{"durationMs": 0}',
            CASE WHEN i % 20 = 0 THEN 'cancelled' WHEN i % 20 = 1 THEN 'failed' ELSE 'done' END,
            false, false, 1, 1, 'skip', t - interval '50 ms', t - interval '50 ms', t - interval '20 ms', t,
            CASE WHEN i % 20 > 1 THEN '{"ok": true}'::jsonb END, CASE WHEN i % 20 = 1 THEN 'simulated failure' END
     FROM generate_series(1, $1::int) AS i
     CROSS JOIN LATERAL (SELECT CASE WHEN i <= $2::int THEN now() - (i * interval '250 ms')
                                     ELSE now() - interval '1 hour' - (i::float8 / $1::int) * interval '30 days' END AS t) AS s
     ORDER BY i`,
    [count, RECENT_ENDINGS],
  );
  await c.query(
    `INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
     SELECT id, lock_id, 1, 'bench', started_at, finished_at,
            CASE status WHEN 'done' THEN 'done' WHEN 'failed' THEN 'error' ELSE 'cancelled' END, last_error
     FROM actions WHERE NOT holds_group`,
  );
  await c.query('SET session_replication_role = origin');
}

async function prepare(url: string, history: number): Promise<void> {
  await withClient(url, async (c) => {
    await fillHistory(c, history);
    await fillLiveQueue(c);
    // Separately: a plain ANALYZE also refreshes the partial indexes' row estimates.
    await c.query('VACUUM actions');
    await c.query('VACUUM action_attempts');
    await c.query('ANALYZE actions');
    await c.query('ANALYZE action_attempts');
  });
}

async function timeGet(base: string, path: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs the scenario.
 * @param startService starts an API-only service process on a database URL.
 * @param log prints progress.
 */
export async function adminReadsScenario(startService: (url: string) => Promise<ServiceProcess>, log: (line: string) => void): Promise<AdminReadResult[]> {
  const tag = `${process.pid}_${Date.now() % 100000}`;
  const smallDb = `aq_bench_admin_small_${tag}`;
  const largeDb = `aq_bench_admin_large_${tag}`;
  const smallUrl = await createMigratedDatabase(smallDb);
  const largeUrl = await createMigratedDatabase(largeDb);
  try {
    const t = performance.now();
    await prepare(smallUrl, SMALL_HISTORY);
    await prepare(largeUrl, LARGE_HISTORY);
    log(`Admin reads: databases filled (${SMALL_HISTORY} and ${LARGE_HISTORY} finished actions) in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    const small = await startService(smallUrl);
    const large = await startService(largeUrl);
    try {
      const { rows } = await withClient(largeUrl, (c) => c.query(`SELECT min(id)::text AS id FROM actions WHERE lock_id = ${TIMELINE_GROUP}`));
      const routes = [
        '/stats',
        '/metrics',
        '/stats/activity?minutes=15',
        '/groups/blocked?limit=50',
        '/groups/deepest?limit=20',
        `/groups/${TIMELINE_GROUP}/timeline?limit=50`,
        '/actions?limit=50',
        '/actions?status=failed&limit=50',
        `/actions/${rows[0].id}`,
      ];
      // Warm-up: connections, plans, and the activity roll-up's first pass over the last hour.
      for (let i = 0; i < 5; i++) for (const route of routes) await Promise.all([timeGet(small.url, route), timeGet(large.url, route)]);
      // What /stats says at each size (estimates labelled), against a count of every row.
      for (const [label, svc, url] of [
        ['10 000', small, smallUrl],
        ['1 000 000', large, largeUrl],
      ] as const) {
        const stats = (await (await fetch(`${svc.url}/stats`)).json()) as { byStatus: Record<string, number>; estimated: string[] };
        const truth = await withClient(url, (c) => c.query(`SELECT status, count(*)::int AS n FROM actions GROUP BY status ORDER BY status`));
        log(
          `Admin reads: /stats at ${label} finished: ${JSON.stringify(stats.byStatus)}, estimated ${JSON.stringify(stats.estimated)}; ` +
            `counted: ${truth.rows.map((r) => `${r.status} ${r.n}`).join(', ')}`,
        );
      }
      const results: AdminReadResult[] = [];
      for (const route of routes) {
        const ts: number[] = [];
        const tl: number[] = [];
        for (let i = 0; i < REQUESTS_PER_ROUTE; i++) {
          if (i % 2 === 0) {
            ts.push(await timeGet(small.url, route));
            tl.push(await timeGet(large.url, route));
          } else {
            tl.push(await timeGet(large.url, route));
            ts.push(await timeGet(small.url, route));
          }
        }
        const smallMs = median(ts);
        const largeMs = median(tl);
        results.push({ route: route.replace(/\/actions\/\d+$/, '/actions/:id'), smallMs, largeMs, ratio: largeMs / smallMs });
      }
      return results;
    } finally {
      await small.stop();
      await large.stop();
    }
  } finally {
    await dropDatabase(smallDb);
    await dropDatabase(largeDb);
  }
}
