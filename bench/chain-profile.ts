import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, enqueueSql, withClient } from './bench-database';
import { processCpuUs } from './cpu-per-action';

/**
 * Where one step of a serial chain spends its server time:
 * `node dist/bench/chain-profile.js`. One group of CHAIN_LENGTH actions, one
 * connection, the worker's finishing statement (aq_finish_attempts, which
 * records the outcome, promotes the next head and hands it back) in a loop,
 * as `npm run bench:ceiling` does. It prints:
 *
 * - ms and backend CPU µs per step, without any instrumentation;
 * - then, for PROFILED_STEPS steps under auto_explain (loaded into the
 *   session; nested statements, triggers, timing), the mean time per step of
 *   each nested statement and trigger, from the plans the server sends back
 *   as LOG messages. Instrumented steps are slower than plain ones; the
 *   shares are what to read.
 *
 * It needs a superuser connection (LOAD, SET of auto_explain settings).
 */

const TYPE = 'instance.update';
const LEASE_MS = 60_000;
const CHAIN_LENGTH = 1_500;
/** Steps timed without instrumentation, after WARM_UP_STEPS. */
const PLAIN_STEPS = 600;
const WARM_UP_STEPS = 100;
/** Steps under auto_explain: enough for stable means, few enough that the log messages stay small. */
const PROFILED_STEPS = 200;

interface Held {
  id: string;
  attempt: number;
}

async function step(c: Client, held: Held): Promise<Held | null> {
  const { rows } = await c.query({
    ...FINISH_ATTEMPTS_SQL,
    values: ['w', [held.id], [held.attempt], ['done'], ['{}'], [null], [null], [0], ['done'], [0], [TYPE], [null], LEASE_MS, 1],
  });
  const next = rows.find((r: { kind: string }) => r.kind === 'claimed') as { id: string; attempts: number } | undefined;
  return next ? { id: next.id, attempt: next.attempts } : null;
}

/** Sums auto_explain's durations by the first line of each statement's text, and trigger times by trigger name. */
class PlanTally {
  readonly statements = new Map<string, number>();
  readonly triggers = new Map<string, number>();

  add(message: string): void {
    const duration = /duration: ([\d.]+) ms/.exec(message);
    const text = /Query Text: ([^\n]*)/.exec(message);
    if (duration && text) {
      const key = text[1].trim().slice(0, 90);
      this.statements.set(key, (this.statements.get(key) ?? 0) + Number(duration[1]));
    }
    for (const m of message.matchAll(/Trigger ([\w]+)(?: on \w+)?: time=([\d.]+) calls=(\d+)/g)) {
      this.triggers.set(m[1], (this.triggers.get(m[1]) ?? 0) + Number(m[2]));
    }
  }
}

async function main(): Promise<void> {
  const name = `aq_chain_profile_${process.pid}`;
  const url = await createMigratedDatabase(name);
  try {
    await withClient(url, async (c) => {
      await enqueueSql(c, { count: CHAIN_LENGTH, lockExpr: '0' }, TYPE);
      await c.query('ANALYZE actions');
      const { rows: pidRow } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const pid = pidRow[0].pid;
      const claimed = (await c.query({ ...CLAIM_ACTIONS_SQL, values: ['w', [TYPE], [null], 1, LEASE_MS, false] })).rows[0];
      let held: Held | null = { id: claimed.id, attempt: claimed.attempts };
      for (let i = 0; i < WARM_UP_STEPS && held; i++) held = await step(c, held);

      const cpuBefore = processCpuUs(pid)!;
      const started = performance.now();
      for (let i = 0; i < PLAIN_STEPS && held; i++) held = await step(c, held);
      const ms = (performance.now() - started) / PLAIN_STEPS;
      const cpuUs = (processCpuUs(pid)! - cpuBefore) / PLAIN_STEPS;
      process.stdout.write(`plain: ${ms.toFixed(3)} ms per step, ${cpuUs.toFixed(0)} µs backend CPU per step (${PLAIN_STEPS} steps)\n`);

      const tally = new PlanTally();
      c.on('notice', (n) => tally.add(n.message ?? ''));
      await c.query(`LOAD 'auto_explain'`);
      await c.query(
        `SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_nested_statements = on;
         SET auto_explain.log_triggers = on; SET auto_explain.log_timing = on; SET client_min_messages = log`,
      );
      const profiledStarted = performance.now();
      for (let i = 0; i < PROFILED_STEPS && held; i++) held = await step(c, held);
      const profiledMs = (performance.now() - profiledStarted) / PROFILED_STEPS;
      await c.query('SET client_min_messages = notice; SET auto_explain.log_min_duration = -1');
      process.stdout.write(
        `\nunder auto_explain: ${profiledMs.toFixed(3)} ms per step (${PROFILED_STEPS} steps); mean ms per step of each nested statement:\n`,
      );
      for (const [text, total] of [...tally.statements].sort((a, b) => b[1] - a[1])) {
        process.stdout.write(`${(total / PROFILED_STEPS).toFixed(3).padStart(8)}  ${text}\n`);
      }
      process.stdout.write('\ntriggers (mean ms per step, as reported inside their statement):\n');
      for (const [trigger, total] of [...tally.triggers].sort((a, b) => b[1] - a[1])) {
        process.stdout.write(`${(total / PROFILED_STEPS).toFixed(3).padStart(8)}  ${trigger}\n`);
      }
    });
  } finally {
    await dropDatabase(name);
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
