import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, enqueueSql, withClient } from './bench-database';
import { sleep } from '../src/sleep';
import { finishValues, PROBE_LEASE_MS, PROBE_TYPE } from './claim-finish-probe';

/**
 * What the database alone can do: the worker's two statements driven in a
 * tight loop, without the service, HTTP or handlers. `npm run bench:ceiling`.
 *
 * - `chain`: one group of 3 000 actions, one connection; each step finishes
 *   the running action with aq_finish_attempts, which hands the next head back
 *   in the same statement. Prints ms per step: the floor for a serial group.
 * - `wide`: 20 000 actions in 2 000 groups of 10; 1 and then 2 connections,
 *   each a worker with 128 slots that finishes its whole batch and takes the
 *   hand-offs and claims in one statement. Prints actions/s: the ceiling the
 *   service's Node side is measured against.
 *
 * Each run uses a fresh database on the benchmark server (bench-database.ts),
 * dropped afterwards. Used for the analysis in bench/README.md.
 */

const TYPE = PROBE_TYPE;
const LEASE_MS = PROBE_LEASE_MS;

/** An action leased by a worker: its id and attempt number. */
type Held = { id: string; attempts: number };

async function claim(c: Client, worker: string, limit: number): Promise<Held[]> {
  const { rows } = await c.query({ ...CLAIM_ACTIONS_SQL, values: [worker, [TYPE], [null], limit, LEASE_MS, false] });
  return rows.map((r: Held) => ({ id: r.id, attempts: r.attempts }));
}

/** Finishes `held` as done; returns how many were recorded and what was handed off or claimed. */
async function finish(c: Client, worker: string, held: Held[], claimLimit: number): Promise<{ recorded: number; next: Held[] }> {
  const { rows } = await c.query({ ...FINISH_ATTEMPTS_SQL, values: finishValues(worker, held, claimLimit) });
  const recorded = rows.filter((r: { kind: string }) => r.kind === 'finished').length;
  const next = rows.filter((r: { kind: string }) => r.kind === 'claimed').map((r: Held) => ({ id: r.id, attempts: r.attempts }));
  return { recorded, next };
}

async function withWorkload<T>(label: string, count: number, lockExpr: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `aq_ceiling_${label}_${process.pid}`;
  const url = await createMigratedDatabase(name);
  try {
    await withClient(url, async (c) => {
      await enqueueSql(c, { count, lockExpr }, TYPE);
      await c.query('ANALYZE actions');
    });
    return await fn(url);
  } finally {
    await dropDatabase(name);
  }
}

async function chain(): Promise<void> {
  const count = 3_000;
  await withWorkload('chain', count, '0', (url) =>
    withClient(url, async (c) => {
      let held = await claim(c, 'w', 1);
      let steps = 0;
      const started = performance.now();
      while (held.length > 0) {
        const { recorded, next } = await finish(c, 'w', held, 1);
        if (recorded !== 1) throw new Error(`step ${steps}: ${recorded} attempts recorded, expected 1`);
        steps++;
        held = next;
      }
      const ms = performance.now() - started;
      if (steps !== count) throw new Error(`chain ran ${steps} of ${count} actions`);
      process.stdout.write(`chain: ${steps} actions of one group, ${(ms / steps).toFixed(3)} ms per step, ${((steps * 1000) / ms).toFixed(0)} actions/s\n`);
    }),
  );
}

async function wide(connections: number): Promise<void> {
  const count = 20_000;
  const slots = 128;
  await withWorkload(`wide${connections}`, count, 'i % 2000', async (url) => {
    let done = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, (_, k) =>
        withClient(url, async (c) => {
          const worker = `w${k}`;
          let held = await claim(c, worker, slots);
          // Another connection may hold the last heads for a moment: look again a few times.
          for (let idle = 0; idle < 3;) {
            if (held.length === 0) {
              idle++;
              await sleep(5);
              held = await claim(c, worker, slots);
              continue;
            }
            idle = 0;
            const { recorded, next } = await finish(c, worker, held, held.length);
            done += recorded;
            held = next;
          }
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    if (done !== count) throw new Error(`wide finished ${done} of ${count} actions`);
    process.stdout.write(`wide: ${count} actions in 2 000 groups, ${connections} connection(s) x ${slots} slots, ${(done / seconds).toFixed(0)} actions/s\n`);
  });
}

async function main(): Promise<void> {
  await chain();
  await wide(1);
  await wide(2);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
