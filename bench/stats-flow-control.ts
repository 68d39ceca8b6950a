import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { QUEUE_STATS_SQL } from '../src/actions/sql/queue-stats.sql';
import { QUEUE_STATS_COUNT_CAP, readQueueStats } from '../src/actions/stats/queue-stats.reader';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * What the queue-wide statistics statement of `GET /stats` and `/metrics`
 * (src/actions/sql/queue-stats.sql.ts) costs under flow control: a live queue
 * of GROUPS pending group heads (each with one action behind it, half of one
 * type, half of another), read with
 *
 * - `none`: no pause, no rate limit (the common case);
 * - `10k paused groups`: 10 000 of those groups paused;
 * - `paused type`: the type of half the heads paused;
 * - `paused queue`: the whole queue paused;
 * - `type limit, empty`: a rate limit on the type of half the heads, its bucket empty;
 * - `10k group limits`: 10 000 groups with a rate limit, each holding its head back.
 *
 * Each variant is set up in a transaction that is rolled back after it was
 * read, and the statements alternate read by read, so that the machine's
 * drift falls on all alike. The time is the client's round trip (planning
 * included), median of READS per statement and variant.
 *
 * `node dist/bench/stats-flow-control.js [--before=<file>]`: with `--before`,
 * the statement of an older queue-stats.sql.ts is read too (its
 * `QUEUE_STATS_SQL` literal), e.g. from
 * `git show 209e402:src/actions/sql/queue-stats.sql.ts > /tmp/before.ts`.
 */

const GROUPS = Number(process.env.STATS_GROUPS ?? 20_000);
const READS = 15;
const DATABASE = `aq_bench_stats_flow_${process.pid}`;

/** Set-up statements of each variant, run inside the transaction it is read in. */
const VARIANTS: { name: string; setup: string[] }[] = [
  { name: 'none', setup: [] },
  { name: '10k paused groups', setup: [`INSERT INTO action_pauses (scope, lock_id) SELECT 'group', g FROM generate_series(1, 10000) AS g`] },
  { name: 'paused type', setup: [`INSERT INTO action_pauses (scope, type) VALUES ('type', 'instance.update')`] },
  { name: 'paused queue', setup: [`INSERT INTO action_pauses (scope) VALUES ('queue')`] },
  {
    name: 'type limit, empty',
    setup: [`INSERT INTO action_rate_limits (type, override_per_second, tokens, refilled_at) VALUES ('instance.update', 0.001, 0, now())`],
  },
  {
    name: '10k group limits',
    setup: [
      `INSERT INTO action_group_rate_limits (lock_id, per_second, tokens, held_id, held_until)
       SELECT a.lock_id, 0.001, 0, a.id, now() + interval '1 hour' FROM actions AS a WHERE a.is_head AND a.lock_id <= 10000`,
      `UPDATE actions AS a SET run_at = g.held_until FROM action_group_rate_limits AS g WHERE a.id = g.held_id`,
    ],
  },
];

/** The `QUEUE_STATS_SQL` template literal of a queue-stats.sql.ts source file. */
function statementOf(file: string): string {
  const match = /QUEUE_STATS_SQL = `([^`]*)`/.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error(`${file} has no QUEUE_STATS_SQL literal`);
  return match[1];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeRead(c: Client, sql: string): Promise<number> {
  const started = performance.now();
  await c.query(sql, [QUEUE_STATS_COUNT_CAP + 1]);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const beforeFile = process.argv.find((a) => a.startsWith('--before='))?.slice('--before='.length);
  const statements = [{ name: 'after', sql: QUEUE_STATS_SQL }, ...(beforeFile ? [{ name: 'before', sql: statementOf(beforeFile) }] : [])];
  const url = await createMigratedDatabase(DATABASE);
  try {
    await withClient(url, async (c) => {
      await c.query(
        `INSERT INTO actions (lock_id, type, payload)
         SELECT 1 + i % $1::int, CASE WHEN i % 2 = 0 THEN 'instance.update' ELSE 'instance.create' END, '{}'
         FROM generate_series(0, 2 * $1::int - 1) AS i ORDER BY i`,
        [GROUPS],
      );
      await c.query('VACUUM ANALYZE actions');
      console.log(`${GROUPS} pending heads, ${GROUPS} behind them; ${READS} reads per statement and variant`);
      for (const variant of VARIANTS) {
        await c.query('BEGIN');
        try {
          for (const sql of variant.setup) await c.query(sql);
          const times = new Map(statements.map((s) => [s.name, [] as number[]]));
          for (const s of statements) await timeRead(c, s.sql); // warm-up
          for (let i = 0; i < READS; i++) for (const s of statements) times.get(s.name)!.push(await timeRead(c, s.sql));
          const b = (await readQueueStats(async (sql, values) => (await c.query(sql, values)).rows)).pendingBreakdown;
          const figures = `due ${b.due}, paused ${b.paused}, waiting for a token ${b.waitingForRateLimit}`;
          const cells = statements.map((s) => `${s.name} ${median(times.get(s.name)!).toFixed(1).padStart(7)} ms`).join('  ');
          console.log(`${variant.name.padEnd(18)} ${cells}   (${figures})`);
        } finally {
          await c.query('ROLLBACK');
        }
      }
    });
  } finally {
    await dropDatabase(DATABASE);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
