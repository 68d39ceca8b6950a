import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * What the maximum-group-depth check (src/database/sql/035-group-depth-limits.up.sql)
 * costs an SQL bulk insert: `INSERT … SELECT` of DEPTH_ROWS rows (default
 * 100 000) into 1 000 groups, run in rolled-back transactions, variants
 * alternated run by run (so the machine's drift falls on all of them):
 *
 * - `none`: migration 035's trigger dropped (the floor);
 * - `no-limit`: the schema as migrated, no limit configured (the common case);
 * - `limit`: the same with a global limit larger than any group gets (the check runs and passes);
 * - `before`: with `--before=<file>`, 035's trigger replaced by the one the
 *   given up migration creates (e.g. an older 035, `git show <rev>:src/database/sql/035-group-depth-limits.up.sql`).
 *
 * `node dist/bench/depth-trigger-cost.js [--runs=3] [--before=<file>]`; prints
 * ms and rows/s per run and the median per variant, then, from one
 * `EXPLAIN ANALYZE` of the insert per variant, the time spent in each trigger
 * (steadier than the wall clock on a busy machine).
 */

const ROWS = Number(process.env.DEPTH_ROWS ?? 100_000);
const GROUPS = 1_000;
const INSERT_SQL = `INSERT INTO actions (lock_id, type, payload)
  SELECT 1 + (i % ${GROUPS}), 'instance.update', '{"durationMs": 0}'::jsonb FROM generate_series(1, $1::int) AS i ORDER BY i`;

interface Variant {
  name: string;
  /** Statements run once on the variant's database before the measurement. */
  setup: string[];
  /** Statements run in each measured transaction before the insert. */
  before: string[];
}

function argument(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main(): Promise<void> {
  const runs = Number(argument('runs') ?? 3);
  const down = readFileSync(join(SQL_MIGRATIONS_DIR, '035-group-depth-limits.down.sql'), 'utf8');
  const beforeFile = argument('before');
  const variants: Variant[] = [
    { name: 'none', setup: [down], before: [] },
    { name: 'no-limit', setup: [], before: [] },
    { name: 'limit', setup: [], before: [`INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, ${ROWS + 1})`] },
  ];
  if (beforeFile) variants.push({ name: 'before', setup: [down, readFileSync(beforeFile, 'utf8')], before: [] });
  const urls = new Map<string, string>();
  try {
    for (const v of variants) {
      const url = await createMigratedDatabase(`aq_bench_depth_${v.name.replace('-', '_')}`);
      urls.set(v.name, url);
      await withClient(url, async (c) => {
        for (const sql of v.setup) await c.query(sql);
        // A warm-up, so the first measured run does not pay for cold caches.
        await c.query('BEGIN');
        await c.query(INSERT_SQL, [ROWS]);
        await c.query('ROLLBACK');
      });
    }
    const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    for (let run = 1; run <= runs; run++) {
      for (const v of variants) {
        const ms = await withClient(urls.get(v.name)!, async (c) => {
          await c.query('BEGIN');
          for (const sql of v.before) await c.query(sql);
          const start = process.hrtime.bigint();
          await c.query(INSERT_SQL, [ROWS]);
          const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
          await c.query('ROLLBACK');
          return elapsed;
        });
        times.get(v.name)!.push(ms);
        console.log(`run ${run} ${v.name.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms ${Math.round((ROWS / ms) * 1000).toLocaleString('en-US')} rows/s`);
      }
    }
    for (const v of variants) {
      const sorted = [...times.get(v.name)!].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      console.log(`median ${v.name.padEnd(8)} ${median.toFixed(0).padStart(6)} ms ${Math.round((ROWS / median) * 1000).toLocaleString('en-US')} rows/s`);
    }
    for (const v of variants) {
      const triggers = await withClient(urls.get(v.name)!, async (c) => {
        await c.query('BEGIN');
        for (const sql of v.before) await c.query(sql);
        const plan = (
          await c.query<{ 'QUERY PLAN': [{ Triggers?: { 'Trigger Name': string; Time: number; Calls: number }[] }] }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${INSERT_SQL}`,
            [ROWS],
          )
        ).rows[0]['QUERY PLAN'][0].Triggers;
        await c.query('ROLLBACK');
        return plan ?? [];
      });
      const line = triggers.map((t) => `${t['Trigger Name']} ${t.Time.toFixed(0)} ms/${t.Calls}`).join(', ');
      console.log(`triggers ${v.name.padEnd(8)} ${line}`);
    }
  } finally {
    for (const v of variants) await dropDatabase(`aq_bench_depth_${v.name.replace('-', '_')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
