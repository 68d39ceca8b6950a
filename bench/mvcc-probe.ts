import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * Where the time goes under a held MVCC horizon: the worker's two statements
 * alone, no service. `node dist/bench/mvcc-probe.js [--hold] [--groups] [--before-023]`.
 *
 * One connection enqueues 32 actions, claims them (aq_claim_actions) and
 * finishes them (aq_finish_attempts, nothing claimed in the same statement),
 * again and again, PROBE_ACTIONS times (default 24 000). With `--hold` a
 * second session holds `BEGIN; SELECT txid_current();` idle the whole time,
 * so no row version written meanwhile can be pruned. Every 4 800 actions it
 * prints, for one claim and one finish of 32 run inside a rolled-back
 * transaction on the same connection (so with its claim frontier): shared
 * buffers touched and execution time from EXPLAIN (ANALYZE, BUFFERS), and
 * n_dead_tup of actions. Buffers are the figure to compare: they do not
 * depend on how busy the machine is. `--groups` spreads the actions over
 * 1 000 groups; `--before-023` runs the claim and finish of migration 022
 * (023's down migration applied), for an A/B in one session.
 */

const TYPE = 'instance.update';
const BATCH = 32;
const LEASE_MS = 60_000;
const SAMPLE_EVERY = 4_800;

interface ExplainRoot {
  Plan: { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  'Execution Time': number;
}

function finishValues(worker: string, rows: { id: string; attempts: number }[]): unknown[] {
  return [
    worker,
    rows.map((r) => r.id),
    rows.map((r) => r.attempts),
    rows.map(() => 'done'),
    rows.map(() => '{}'),
    rows.map(() => null),
    rows.map(() => null),
    rows.map(() => 0),
    rows.map(() => 'done'),
    rows.map(() => 0),
    [TYPE],
    [null],
    LEASE_MS,
    0,
  ];
}

async function explain(c: Client, sql: string, values: unknown[]): Promise<{ buffers: number; ms: number }> {
  const { rows } = await c.query<{ 'QUERY PLAN': ExplainRoot[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, values);
  const root = rows[0]['QUERY PLAN'][0];
  return { buffers: (root.Plan['Shared Hit Blocks'] ?? 0) + (root.Plan['Shared Read Blocks'] ?? 0), ms: root['Execution Time'] };
}

/** One claim and one finish of BATCH actions, measured, then rolled back. */
async function sample(c: Client): Promise<string> {
  await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT NULL, $1, '{}' FROM generate_series(1, $2::int)`, [TYPE, BATCH]);
  await c.query('BEGIN');
  try {
    const claim = await explain(c, CLAIM_ACTIONS_SQL.text, ['probe', [TYPE], [null], BATCH, LEASE_MS, false]);
    const { rows } = await c.query<{ id: string; attempts: number }>(
      `SELECT id::text, attempts FROM actions WHERE status = 'running' AND lease_owner = 'probe'`,
    );
    const finish = await explain(c, FINISH_ATTEMPTS_SQL.text, finishValues('probe', rows));
    return `claim ${claim.buffers} buffers ${claim.ms.toFixed(2)} ms (${rows.length} rows), finish ${finish.buffers} buffers ${finish.ms.toFixed(2)} ms`;
  } finally {
    await c.query('ROLLBACK');
  }
}

async function main(): Promise<void> {
  const hold = process.argv.includes('--hold');
  const before023 = process.argv.includes('--before-023');
  const lockExpr = process.argv.includes('--groups') ? '(random() * 1000)::int' : 'NULL::bigint';
  const total = Number(process.env.PROBE_ACTIONS ?? 24_000);
  const name = `aq_probe_${process.pid}`;
  const url = await createMigratedDatabase(name);
  const holder = new Client({ connectionString: url });
  await holder.connect();
  try {
    if (before023) await holder.query(readFileSync(join(SQL_MIGRATIONS_DIR, '023-claim-frontier.down.sql'), 'utf8'));
    if (hold) {
      await holder.query('BEGIN');
      await holder.query('SELECT txid_current()');
    }
    console.log(`probe: ${before023 ? 'claim and finish of 022' : 'this release'}, ${hold ? 'horizon held' : 'no hold'}, ${lockExpr}`);
    await withClient(url, async (c) => {
      for (let done = 0; done < total;) {
        await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT ${lockExpr}, $1, '{}' FROM generate_series(1, $2::int)`, [TYPE, BATCH]);
        const { rows } = await c.query({ ...CLAIM_ACTIONS_SQL, values: ['w', [TYPE], [null], BATCH, LEASE_MS, false] });
        await c.query({ ...FINISH_ATTEMPTS_SQL, values: finishValues('w', rows) });
        const before = done;
        done += rows.length;
        if (Math.floor(done / SAMPLE_EVERY) > Math.floor(before / SAMPLE_EVERY)) {
          const dead = await c.query(`SELECT n_dead_tup::int AS n FROM pg_stat_user_tables WHERE relname = 'actions'`);
          console.log(`${String(done).padStart(6)} actions: ${await sample(c)}; actions n_dead_tup ${dead.rows[0].n}`);
        }
      }
    });
  } finally {
    await holder.end();
    await dropDatabase(name);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
