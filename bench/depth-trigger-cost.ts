import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * What the maximum-group-depth check (src/database/sql/035-group-depth-limits.up.sql)
 * costs an SQL bulk insert: `INSERT … SELECT` of DEPTH_ROWS rows (default
 * 100 000) into 1 000 groups. One database, one connection; each run is a
 * transaction that sets its variant up (DDL is transactional), inserts under
 * `EXPLAIN ANALYZE` and rolls back, and the variants alternate run by run,
 * so the machine's drift falls on all of them alike:
 *
 * - `none`: 035's trigger dropped (the floor);
 * - `no-limit`: the schema as migrated, no limit configured (the common case);
 * - `limit`: a global limit larger than any group gets (the check runs and passes);
 * - `before`: with `--before=<file>`, 035 replaced by the given up migration
 *   (e.g. an older 035: `git show <rev>:src/database/sql/035-group-depth-limits.up.sql`).
 *
 * `node dist/bench/depth-trigger-cost.js [--runs=3] [--before=<file>]`; prints
 * per run the server's execution time (ms, rows/s) and the time spent in the
 * depth trigger, then the median per variant.
 */

const ROWS = Number(process.env.DEPTH_ROWS ?? 100_000);
const GROUPS = 1_000;
const DATABASE = 'aq_bench_depth_trigger';
const INSERT_SQL = `INSERT INTO actions (lock_id, type, payload)
  SELECT 1 + (i % ${GROUPS}), 'instance.update', '{"durationMs": 0}'::jsonb FROM generate_series(1, ${ROWS}) AS i ORDER BY i`;

interface Variant {
  name: string;
  /** Statements run in each measured transaction before the insert. */
  setup: string[];
}

interface Plan {
  'Execution Time': number;
  Triggers?: { 'Trigger Name': string; Time: number; Calls: number }[];
}

function argument(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rate = (ms: number) => `${Math.round((ROWS / ms) * 1000).toLocaleString('en-US')} rows/s`;

async function main(): Promise<void> {
  const runs = Number(argument('runs') ?? 3);
  const down = readFileSync(join(SQL_MIGRATIONS_DIR, '035-group-depth-limits.down.sql'), 'utf8');
  const beforeFile = argument('before');
  const variants: Variant[] = [
    { name: 'none', setup: [down] },
    { name: 'no-limit', setup: [] },
    { name: 'limit', setup: [`INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, ${ROWS + 1})`] },
  ];
  if (beforeFile) variants.push({ name: 'before', setup: [down, readFileSync(beforeFile, 'utf8')] });
  const url = await createMigratedDatabase(DATABASE);
  try {
    await withClient(url, async (c) => {
      const measure = async (v: Variant): Promise<Plan> => {
        await c.query('BEGIN');
        try {
          for (const sql of v.setup) await c.query(sql);
          const { rows } = await c.query<{ 'QUERY PLAN': [Plan] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${INSERT_SQL}`);
          return rows[0]['QUERY PLAN'][0];
        } finally {
          await c.query('ROLLBACK');
        }
      };
      // A warm-up, so the first measured run does not pay for cold caches.
      await measure(variants[0]);
      const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
      for (let run = 1; run <= runs; run++) {
        for (const v of variants) {
          const plan = await measure(v);
          const ms = plan['Execution Time'];
          times.get(v.name)!.push(ms);
          const depth = (plan.Triggers ?? []).filter((t) => t['Trigger Name'].includes('depth'));
          const triggers = depth.map((t) => `${t['Trigger Name']} ${t.Time.toFixed(0)} ms/${t.Calls} call(s)`).join(', ') || 'no depth trigger';
          console.log(`run ${run} ${v.name.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms ${rate(ms).padStart(14)}  ${triggers}`);
        }
      }
      for (const v of variants) {
        const ms = median(times.get(v.name)!);
        console.log(`median ${v.name.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms ${rate(ms).padStart(14)}`);
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
