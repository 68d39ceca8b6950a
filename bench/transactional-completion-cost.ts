/**
 * CPU per action of completing in the handler's own transaction
 * (`ctx.transaction`) against the plain finish, on the same workload: each
 * action inserts one row into a user table, either through `ctx.transaction`
 * (the row and the completion in one commit, the completion by the
 * transaction's own finishing statement) or as a plain handler does (its
 * insert committed on its own, then the worker's batched finish). A third
 * variant also keeps a per-group counter in `ctx.groupState`.
 *
 * One in-process service (the service starter's app, 32 slots), a fresh
 * database; per round, ACTIONS actions in GROUPS groups enqueued by one SQL
 * insert, timed until every one is done. Counted: this process's CPU
 * (`process.cpuUsage`, the service and this script's idle wait) and the CPU
 * of the database's client backends (`/proc/<pid>/stat`, the meter's own
 * connection left out), both per action. Rounds alternate A B C A B C (this
 * machine is shared and its speed drifts), after one warm-up round of each.
 * BENCH_FUNCTIONS=1 also prints the time per action in the queue's SQL
 * functions (pg_stat_user_functions) after each round.
 *
 *   npx ts-node bench/transactional-completion-cost.ts   (or node dist/bench/transactional-completion-cost.js)
 */
import 'reflect-metadata';
import { Inject, Module } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../src';
import { loadSettings } from '../src/config/settings';
import { QUEUE_DATA_SOURCE } from '../src/database/queue-data-source.token';
import { createApp } from '../src/service/bootstrap';
import { sleep } from '../src/sleep';
import { createMigratedDatabase, dropDatabase } from './bench-database';
import { processCpuUs } from './cpu-per-action';

const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 3_000);
const GROUPS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DATABASE = 'bench_tx_completion';
const INSERT = `INSERT INTO bench_effects (action_id, lock_id) VALUES ($1, $2)`;

@ActionHandler('bench.plain')
class PlainHandler extends ActionHandlerHost {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {
    super();
  }
  async handle(action: QueuedAction) {
    await this.dataSource.query(INSERT, [action.id, action.lockId]);
    return { ok: true };
  }
}

@ActionHandler('bench.tx')
class TransactionalHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    return ctx.transaction(async (manager) => {
      await manager.query(INSERT, [action.id, action.lockId]);
      return { ok: true };
    });
  }
}

@ActionHandler('bench.tx-state')
class StateHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    return ctx.transaction(async (manager) => {
      await manager.query(INSERT, [action.id, action.lockId]);
      const state = await ctx.groupState.get<{ n: number }>();
      ctx.groupState.set({ n: (state?.n ?? 0) + 1 });
      return { ok: true };
    });
  }
}

@Module({ providers: [PlainHandler, TransactionalHandler, StateHandler] })
class BenchHandlersModule {}

/** CPU µs so far of each client backend of the database but `meter`'s own. */
async function backendCpu(meter: Client): Promise<Map<number, number>> {
  const { rows } = await meter.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  return new Map(rows.map((r) => [r.pid, processCpuUs(r.pid) ?? 0]));
}

async function round(meter: Client, type: string, offset: number): Promise<{ dbUs: number; svcUs: number; ms: number }> {
  const before = await backendCpu(meter);
  const svcBefore = process.cpuUsage();
  const started = performance.now();
  await meter.query(`INSERT INTO actions (lock_id, type) SELECT $3::bigint + (i % $2::int), $1 FROM generate_series(1, $4::int) AS i ORDER BY i`, [
    type,
    GROUPS,
    offset,
    ACTIONS,
  ]);
  for (;;) {
    const { rows } = await meter.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status <> 'done'`);
    if (rows[0].n === 0) break;
    await sleep(20);
  }
  const ms = performance.now() - started;
  if (process.env.BENCH_FUNCTIONS === '1') {
    await sleep(600); // backends report their function counters at most every 500 ms
    const { rows } = await meter.query<{ funcname: string; calls: string; total_time: number; self_time: number }>(
      `SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions WHERE calls > 0 ORDER BY total_time DESC LIMIT 8`,
    );
    console.log(
      type,
      rows
        .map((r) => `${r.funcname} ${r.calls} calls ${(r.total_time / ACTIONS).toFixed(3)} ms/action (self ${(r.self_time / ACTIONS).toFixed(3)})`)
        .join('\n  '),
    );
    await meter.query('SELECT pg_stat_reset()');
  }
  const svc = process.cpuUsage(svcBefore);
  const after = await backendCpu(meter);
  let dbUs = 0;
  // A backend that exited in the round (none expected: the pool stays) is lost; a new one counts from 0.
  for (const [pid, us] of after) dbUs += us - (before.get(pid) ?? 0);
  return { dbUs: dbUs / ACTIONS, svcUs: (svc.user + svc.system) / ACTIONS, ms };
}

async function main(): Promise<void> {
  const url = await createMigratedDatabase(DATABASE);
  const meter = new Client({ connectionString: url, application_name: 'bench:meter' });
  await meter.connect();
  if (process.env.BENCH_FUNCTIONS === '1') await meter.query(`ALTER DATABASE ${DATABASE} SET track_functions = 'pl'`);
  await meter.query(`CREATE TABLE bench_effects (n bigserial PRIMARY KEY, action_id bigint NOT NULL, lock_id bigint)`);
  const settings = loadSettings({
    LOG_LEVEL: 'silent',
    PORT: '0',
    WORKER_CONCURRENCY: '32',
    DEMO_HANDLERS: 'false',
    STRAY_ERROR_POLICY: 'off',
    WATCHDOG_ENABLED: 'false',
  });
  const app = await createApp({ databaseUrl: url, settings, imports: [BenchHandlersModule] });
  await app.init();
  const types = ['bench.plain', 'bench.tx', 'bench.tx-state'];
  const results = new Map<string, { dbUs: number; svcUs: number; ms: number }[]>(types.map((t) => [t, []]));
  let offset = 0;
  try {
    for (let r = -1; r < ROUNDS; r++) {
      for (const type of types) {
        offset += GROUPS;
        const result = await round(meter, type, offset);
        if (r >= 0) results.get(type)!.push(result);
        console.log(
          `${r < 0 ? 'warm-up' : `round ${r + 1}`} ${type.padEnd(15)} db ${result.dbUs.toFixed(0).padStart(5)} µs  service ${result.svcUs.toFixed(0).padStart(5)} µs  total ${(result.dbUs + result.svcUs).toFixed(0).padStart(5)} µs per action  (${((ACTIONS / result.ms) * 1000).toFixed(0)} actions/s)`,
        );
      }
    }
  } finally {
    await app.close();
    await meter.end();
    await dropDatabase(DATABASE);
  }
  if (ROUNDS < 1) return;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const total = (type: string) => median(results.get(type)!.map((x) => x.dbUs + x.svcUs));
  console.log(`\nmedian total CPU per action: ${types.map((t) => `${t} ${total(t).toFixed(0)} µs`).join(', ')}`);
  console.log(
    `ratio bench.tx / bench.plain: ${(total('bench.tx') / total('bench.plain')).toFixed(2)}x; bench.tx-state / bench.plain: ${(total('bench.tx-state') / total('bench.plain')).toFixed(2)}x`,
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
