import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';

/**
 * What tenants cost the claim: `node dist/bench/tenant-claim-cost.js [--rounds=N] [--baseline=<git ref>]`
 * (docs/tenants.md, "What it costs"; figures in bench/README.md).
 *
 * One claim of 16 (`aq_claim_actions`, in a transaction rolled back, so every
 * claim sees the same queue) timed from the client in ms, on one database per
 * case, the cases taken in turn within each round (A B A B) so that the
 * machine's drift falls on all alike:
 * - `baseline, 1 tenant`: 11 000 due heads of the default tenant, with the
 *   claim of `--baseline` (default: the commit before tenants took turns in
 *   the claim) installed over this one: today's claim on today's data;
 * - `1 tenant`: the same heads with this claim (its fast path);
 * - `10 tenants` and `10 000 tenants`: 11 000 due heads spread over that many
 *   tenants (tenants take turns).
 * Prints the median and the 10th-90th percentiles per case, and the two ratios
 * the issue asks for.
 */

const TYPE = 'instance.update';
const LIMIT = 16;
const LEASE_MS = 60_000;
const HEADS = 11_000;

interface Case {
  name: string;
  tenants: number;
  baseline: boolean;
}

const CASES: Case[] = [
  { name: 'baseline, 1 tenant', tenants: 1, baseline: true },
  { name: '1 tenant', tenants: 1, baseline: false },
  { name: '10 tenants', tenants: 10, baseline: false },
  { name: '10 000 tenants', tenants: 10_000, baseline: false },
];

async function claimMs(c: Client): Promise<number> {
  await c.query('BEGIN');
  const t0 = process.hrtime.bigint();
  const { rows } = await c.query(CLAIM_ACTIONS_SQL, ['bench-worker', [TYPE], [null], LIMIT, LEASE_MS, false]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await c.query('ROLLBACK');
  if (rows.length !== LIMIT) throw new Error(`claimed ${rows.length}, not ${LIMIT}`);
  return ms;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function main(): Promise<void> {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const rounds = Number(arg('rounds') ?? 5);
  const baselineRef = arg('baseline') ?? '14ec15a';
  const baselineSql = execFileSync('git', ['show', `${baselineRef}:src/database/functions/aq_claim_actions.sql`], { encoding: 'utf8' });
  const names = CASES.map((_, i) => `aq_bench_tenant_claim_${process.pid}_${i}`);
  const clients: Client[] = [];
  try {
    for (const [i, kase] of CASES.entries()) {
      const url = await createMigratedDatabase(names[i]);
      await withClient(url, async (c) => {
        await c.query(
          `INSERT INTO actions (lock_id, type, tenant, run_at)
           SELECT i, $1, CASE WHEN $3::int = 1 THEN 'default' ELSE 't' || lpad((i % $3::int)::text, 5, '0') END,
                  now() - interval '1 hour' + i * interval '1 ms'
           FROM generate_series(1, $2::int) AS i ORDER BY i`,
          [TYPE, HEADS, kase.tenants],
        );
        if (kase.baseline) await c.query(baselineSql);
        await c.query('VACUUM ANALYZE actions');
      });
      const c = new Client({ connectionString: url });
      await c.connect();
      clients.push(c);
      for (let w = 0; w < 5; w++) await claimMs(c); // warm the plan cache
    }
    const samples: number[][] = CASES.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, c] of clients.entries()) for (let k = 0; k < 40; k++) samples[i].push(await claimMs(c));
    }
    const medians = samples.map((s) =>
      pct(
        [...s].sort((a, b) => a - b),
        0.5,
      ),
    );
    process.stdout.write(`Tenants in the claim: one claim of ${LIMIT} over ${HEADS} due heads (rolled back), ${rounds} rounds x 40 per case, ms:\n`);
    for (const [i, kase] of CASES.entries()) {
      const s = [...samples[i]].sort((a, b) => a - b);
      process.stdout.write(`  ${kase.name.padEnd(20)} median ${pct(s, 0.5).toFixed(3)}  p10 ${pct(s, 0.1).toFixed(3)}  p90 ${pct(s, 0.9).toFixed(3)}\n`);
    }
    process.stdout.write(`  1 tenant / baseline: ${(medians[1] / medians[0]).toFixed(2)}  (issue: <= 1.1)\n`);
    process.stdout.write(`  10 000 / 10 tenants: ${(medians[3] / medians[2]).toFixed(2)}  (issue: within 1.5x)\n`);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
    for (const name of names) await dropDatabase(name);
  }
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
