import { Client } from 'pg';
import { fillHistory } from './admin-reads';
import { createMigratedDatabase, dropDatabase } from './bench-database';
import { PROBE_BATCH, probeClaimAndFinish, StatementCost } from './claim-finish-probe';

/**
 * Finished actions do not weigh on the hot path: the worker's claim and finish
 * (32 actions each) on a database keeping SMALL finished actions and on one
 * keeping LARGE (as with `RETENTION_DAYS=0` after a few days), alternated round
 * by round so that the machine's drift falls on both. Prints the medians of
 * shared buffers touched and of execution time (EXPLAIN ANALYZE) and their
 * ratio, large over small. Buffers are the figure to trust: they do not depend
 * on how busy the machine is. About 3 minutes (filling LARGE rows takes most).
 *
 * `node dist/bench/long-history.js` after a build (bench/README.md, "Long history").
 */

const SMALL = 10_000;
const LARGE = 2_000_000;
const ROUNDS = 60;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function prepared(history: number): Promise<{ name: string; client: Client }> {
  const name = `aq_bench_history_${history}_${process.pid}`;
  await dropDatabase(name);
  const client = new Client({ connectionString: await createMigratedDatabase(name) });
  await client.connect();
  await fillHistory(client, history);
  await client.query('VACUUM ANALYZE actions');
  await client.query('VACUUM ANALYZE action_attempts');
  return { name, client };
}

async function main(): Promise<void> {
  const dbs = [await prepared(SMALL), await prepared(LARGE)];
  try {
    const costs: { claim: StatementCost[]; finish: StatementCost[] }[] = dbs.map(() => ({ claim: [], finish: [] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, db] of dbs.entries()) {
        const { claim, finish, claimed } = await probeClaimAndFinish(db.client);
        if (claimed !== PROBE_BATCH) throw new Error(`the claim leased ${claimed} actions, not ${PROBE_BATCH}`);
        costs[i].claim.push(claim);
        costs[i].finish.push(finish);
      }
    }
    console.log(`Claim and finish of ${PROBE_BATCH} actions, medians of ${ROUNDS} rounds, ${SMALL} vs ${LARGE} finished actions kept:`);
    for (const statement of ['claim', 'finish'] as const) {
      const [small, large] = costs.map((c) => ({ buffers: median(c[statement].map((x) => x.buffers)), ms: median(c[statement].map((x) => x.ms)) }));
      console.log(
        `  ${statement.padEnd(6)} buffers ${small.buffers} -> ${large.buffers} (x${(large.buffers / small.buffers).toFixed(2)}), ` +
          `time ${small.ms.toFixed(3)} -> ${large.ms.toFixed(3)} ms (x${(large.ms / small.ms).toFixed(2)})`,
      );
    }
  } finally {
    for (const db of dbs) {
      await db.client.end();
      await dropDatabase(db.name);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
