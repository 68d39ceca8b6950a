import { Client } from 'pg';
import { ServiceProcess, startServiceProcess } from '../src/testing';
import { sleep } from '../src/sleep';
import { createMigratedDatabase, dropDatabase, withClient } from './bench-database';
import { CostPerAction, CpuMeter } from './cpu-per-action';

/**
 * `npm run bench -- --only=herd`: what idle instances cost. For 1 and then
 * INSTANCES service processes on one database (default settings: poll every
 * second), a trickle of TRICKLE actions, each inserted by SQL when the one
 * before is done (so every instance is idle when notified). Reports claim
 * statements per action (`aq_claim_actions` calls, pg_stat_user_functions:
 * start-up and the polls during the trickle included) and CPU per action of
 * the database's backends and of all the service processes, over the trickle.
 * BENCH_SERVICE_ENTRY runs another build of the service (e.g. an older
 * commit's dist/src/main.js) to compare old and new code in one session.
 */

/** Instances of the herd: the figure the claims-per-action target is set for. */
export const INSTANCES = 8;
const TRICKLE = 200;
/** Let the instances finish their start-up claims and elect a leader before the trickle (ms). */
const SETTLE_MS = 3_000;

/** One herd run's figures. */
export interface HerdResult {
  instances: number;
  claimsPerAction: number;
  cost: CostPerAction;
  /** Median ms from the insert's commit to the action's end (done), seen by the inserting client. */
  medianMs: number;
}

async function trickle(c: Client, n: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.update', '{"durationMs": 0}') RETURNING id`,
      [i % 3 === 0 ? null : i % 7],
    );
    for (;;) {
      const r = await c.query(`SELECT 1 FROM actions WHERE id = $1 AND status = 'done'`, [rows[0].id]);
      if (r.rowCount === 1) break;
      await sleep(1);
    }
    ms.push(performance.now() - started);
  }
  return ms;
}

/** Runs the trickle through `instances` service processes; `env` is added to each service's. */
export async function herdScenario(instances: number, env: Record<string, string>): Promise<HerdResult> {
  const db = `aq_bench_herd_${process.pid}_${instances}`;
  const url = await createMigratedDatabase(db);
  const services: ServiceProcess[] = [];
  try {
    const meter = await CpuMeter.start(url);
    const window = { from: 0, to: 0 };
    let latencies: number[] = [];
    try {
      for (let i = 0; i < instances; i++) {
        const svc = await startServiceProcess({
          entry: process.env.BENCH_SERVICE_ENTRY || undefined,
          env: { LOG_LEVEL: 'warn', DEMO_HANDLERS: 'true', WORKER_CONCURRENCY: '16', DB_POOL_SIZE: '2', ...env, DATABASE_URL: url },
        });
        services.push(svc);
        meter.watchService(svc.child.pid!);
      }
      await sleep(SETTLE_MS);
      await withClient(url, async (c) => {
        window.from = Date.now();
        latencies = await trickle(c, TRICKLE);
        window.to = Date.now();
      });
    } finally {
      await Promise.all(services.map((s) => s.stop()));
      await meter.stop();
    }
    const cost = await meter.costPerAction(TRICKLE, window.from, window.to);
    latencies.sort((a, b) => a - b);
    return { instances, claimsPerAction: cost.calls.aq_claim_actions, cost, medianMs: latencies[Math.floor(latencies.length / 2)] };
  } finally {
    await dropDatabase(db);
  }
}
