import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';
import { claimValues, finishValues, PROBE_BATCH, PROBE_TYPE, probeClaimAndFinish } from './claim-finish-probe';

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

const SAMPLE_EVERY = 4_800;

/** One claim and one finish of PROBE_BATCH actions, measured, then rolled back. */
async function sample(c: Client): Promise<string> {
  const { claim, finish, claimed } = await probeClaimAndFinish(c);
  return `claim ${claim.buffers} buffers ${claim.ms.toFixed(2)} ms (${claimed} rows), finish ${finish.buffers} buffers ${finish.ms.toFixed(2)} ms`;
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
        await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT ${lockExpr}, $1, '{}' FROM generate_series(1, $2::int)`, [PROBE_TYPE, PROBE_BATCH]);
        const { rows } = await c.query({ ...CLAIM_ACTIONS_SQL, values: claimValues('w') });
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
