import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * What flow control costs the claim: `node dist/bench/flow-control-claim.js [--rounds=N]`
 * (docs/flow-control.md, "How it is built, and what it costs").
 *
 * One claim of 10 (`aq_claim_actions`, 10-slot worker, in a transaction rolled
 * back, so every claim sees the same queue and sweeps from the start of the
 * claim index: the worst case of 023's frontier) is timed from the client, in
 * ms, on one database per case, the cases taken in turn within each round so
 * that the machine's drift falls on all of them alike. Cases:
 * - `none`: 11 000 due heads in 11 000 groups, nothing paused or limited;
 * - `paused`: the same, the first 10 000 groups (their heads first in
 *   (run_at, id) order) paused, 1 000 claimable heads after them;
 * - `limited, due`: 1 000 rate-limited groups whose heads are due (full
 *   buckets: each claim takes tokens) ahead of 1 000 unlimited heads;
 * - `limited, held`: 1 000 rate-limited groups whose heads wait for their
 *   tokens (run_at ahead, as the claim leaves them), and 1 000 unlimited heads.
 * Prints the median and the 10th-90th percentiles per case.
 */

const TYPE = 'instance.update';
const LIMIT = 10;
const LEASE_MS = 60_000;

interface Case {
  name: string;
  /** Fills a migrated database. */
  setup(c: Client): Promise<void>;
}

const heads = (c: Client, from: number, count: number) =>
  c.query(
    `INSERT INTO actions (lock_id, type, payload, run_at)
     SELECT $1::bigint + i, $2, '{"durationMs": 0}'::jsonb, now() - interval '1 hour' + i * interval '1 ms'
     FROM generate_series(0, $3::int - 1) AS i ORDER BY i`,
    [from, TYPE, count],
  );

const CASES: Case[] = [
  { name: 'none', setup: (c) => heads(c, 1, 11_000).then(() => undefined) },
  {
    name: 'paused',
    setup: async (c) => {
      await heads(c, 1, 11_000);
      await c.query(`SELECT aq_pause_group(g) FROM generate_series(1, 10000) AS g`);
    },
  },
  {
    name: 'limited, due',
    setup: async (c) => {
      await heads(c, 1, 2_000);
      await c.query(`SELECT aq_set_group_rate_limit(g, 5, 1) FROM generate_series(1, 1000) AS g`);
    },
  },
  {
    name: 'limited, held',
    setup: async (c) => {
      await heads(c, 1, 2_000);
      await c.query(`SELECT aq_set_group_rate_limit(g, 5, 1) FROM generate_series(1, 1000) AS g`);
      await c.query(`UPDATE actions SET run_at = now() + interval '1 hour' WHERE lock_id BETWEEN 1 AND 1000`);
    },
  },
];

async function claimMs(c: Client): Promise<number> {
  await c.query('BEGIN');
  const t0 = process.hrtime.bigint();
  await c.query(CLAIM_ACTIONS_SQL, ['bench-worker', [TYPE], [null], LIMIT, LEASE_MS, false]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await c.query('ROLLBACK');
  return ms;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** One case's claim times (ms): median and 10th-90th percentiles. */
export interface FlowControlClaimCost {
  name: string;
  median: number;
  p10: number;
  p90: number;
}

/**
 * Times the claim in each case (see the file comment), the cases taken in
 * turn within each of `rounds` rounds of 40 claims.
 * @returns one entry per case, in CASES order.
 */
export async function flowControlClaimCosts(rounds: number): Promise<FlowControlClaimCost[]> {
  const perRound = 40;
  const names = CASES.map((_, i) => `aq_bench_flow_claim_${process.pid}_${i}`);
  const clients: Client[] = [];
  try {
    for (const [i, kase] of CASES.entries()) {
      const url = await createMigratedDatabase(names[i]);
      await withClient(url, async (c) => {
        await kase.setup(c);
        await c.query('VACUUM ANALYZE actions');
      });
      const c = new Client({ connectionString: url });
      await c.connect();
      clients.push(c);
      for (let w = 0; w < 5; w++) await claimMs(c); // warm the plan cache
    }
    const samples: number[][] = CASES.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, c] of clients.entries()) for (let k = 0; k < perRound; k++) samples[i].push(await claimMs(c));
    }
    return CASES.map((kase, i) => {
      const s = [...samples[i]].sort((a, b) => a - b);
      return { name: kase.name, median: pct(s, 0.5), p10: pct(s, 0.1), p90: pct(s, 0.9) };
    });
  } finally {
    await Promise.all(clients.map((c) => c.end()));
    for (const name of names) await dropDatabase(name);
  }
}

/** The lines `npm run bench` prints for {@link flowControlClaimCosts}. */
export function describeFlowControlClaimCosts(costs: FlowControlClaimCost[], rounds: number): string[] {
  return [
    `Flow control in the claim: one claim of ${LIMIT} (rolled back, a sweep each), ${rounds} rounds x 40 per case, ms:`,
    ...costs.map((k) => `  ${k.name.padEnd(14)} median ${k.median.toFixed(2)}  p10 ${k.p10.toFixed(2)}  p90 ${k.p90.toFixed(2)}`),
  ];
}

async function main(): Promise<void> {
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 5);
  for (const line of describeFlowControlClaimCosts(await flowControlClaimCosts(rounds), rounds)) process.stdout.write(`${line}\n`);
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
