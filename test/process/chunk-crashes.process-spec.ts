import { Client } from 'pg';
import {
  backendPid,
  BlackholeProxy,
  checkTrace,
  connect,
  executionOverlaps,
  FIXTURE_SERVICE,
  formatTraceReport,
  newExecutionLogPath,
  readExecutions,
  ServiceProcess,
  sleep,
  startBlackholeProxy,
  startServiceProcess,
  terminateBackends,
  waitFor,
  withTestDatabase,
} from '../support';

/**
 * Ordered chunks through crashes, compact: three worker processes run the
 * chunk handler test.sleep-chunk (test/fixtures/chunk-sleep-handler.ts, chunks
 * of up to 20) mixed in their groups with single actions (test.sleep), while
 * the driver SIGKILLs a worker that holds a running chunk about every 1.5 s,
 * cuts every database connection of the service once, and blackholes one
 * worker's database traffic for longer than a lease. The trace must show
 * every action done exactly once, no overlapping attempts in a group (a
 * chunk's own attempts excepted) and no order violation; the handlers'
 * execution log must show no two executions of a group at once.
 */
const WORKERS = 3;
const GROUPS = 60;
const PER_GROUP = 100;
const WORKER_ENV = {
  LOG_LEVEL: 'error',
  DEMO_HANDLERS: 'false',
  LEASE_MS: '2000',
  REAPER_INTERVAL_MS: '300',
  WORKER_POLL_INTERVAL_MS: '100',
  WORKER_CONCURRENCY: '8',
  DB_POOL_SIZE: '6',
  SHUTDOWN_TIMEOUT_MS: '3000',
};

describe('ordered chunks through SIGKILLs, a connection cut and a blackholed worker', () => {
  const db = withTestDatabase('chunk_crashes');
  const execLog = newExecutionLogPath('chunk-crashes');
  const procs: (ServiceProcess | null)[] = [];
  const workerIds: string[] = [];
  const deaths = new Map<number, number>();
  let incarnation = 0;
  let proxy: BlackholeProxy;
  let c: Client;

  const start = async (slot: number): Promise<void> => {
    const id = `chunks-w${slot}-${++incarnation}`;
    const p = await startServiceProcess({
      entry: FIXTURE_SERVICE,
      env: { ...WORKER_ENV, WORKER_ID: id, EXEC_LOG: execLog, DATABASE_URL: slot === 0 ? proxy.url : db.url },
      healthyWithinMs: 0,
    });
    void p.exited.then(() => deaths.set(p.child.pid!, Date.now()));
    procs[slot] = p;
    workerIds[slot] = id;
    await p.healthy(30_000);
  };

  beforeAll(async () => {
    proxy = await startBlackholeProxy(db.url);
    c = await connect(db.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await c?.end().catch(() => undefined);
  });

  it('keeps order, one at a time and exactly once', async () => {
    // Every fifth action of a group is a single action; the others run in chunks. Some run long, so kills land mid-chunk.
    await c.query(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT 1 + (i % $1), CASE WHEN i % 5 = 0 THEN 'test.sleep' ELSE 'test.sleep-chunk' END,
              jsonb_build_object('ms', CASE WHEN i % 37 = 0 THEN 400 ELSE 30 + (i % 6) * 10 END)
       FROM generate_series(1, $2::int) AS i ORDER BY i`,
      [GROUPS, GROUPS * PER_GROUP],
    );
    try {
      await chaos();
    } finally {
      for (const p of procs.splice(0)) await p?.kill().catch(() => undefined);
    }
  }, 240_000);

  async function chaos(): Promise<void> {
    for (let slot = 0; slot < WORKERS; slot++) await start(slot);

    let kills = 0;
    let cut = 0;
    for (let round = 0; round < 10; round++) {
      await sleep(1_500);
      if (round === 2) {
        cut = await terminateBackends(db.name, `pid <> ${await backendPid(c)}`);
        continue;
      }
      if (round === 4) {
        proxy.blackhole();
        await sleep(5_000); // over twice LEASE_MS: worker 0's leases expire and its work runs elsewhere
        proxy.restore();
        continue;
      }
      // A worker (not worker 0, which the blackhole needs) holding a chunk of more than one action, if one does.
      const { rows } = await c.query<{ owner: string }>(
        `SELECT lease_owner AS owner FROM actions WHERE status = 'running' AND chunk_of IS NOT NULL AND chunk_of <> id AND lease_owner <> $1 LIMIT 1`,
        [workerIds[0]],
      );
      const slot = rows[0] ? workerIds.indexOf(rows[0].owner) : 1 + (round % (WORKERS - 1));
      if (slot < 1 || !procs[slot]) continue;
      await procs[slot]!.kill();
      kills++;
      await start(slot);
    }

    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE status <> 'done' LIMIT 1`)).rowCount === 0, 120_000, 250);
    const report = await checkTrace(c);
    expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
    const { rows } = await c.query<{ chunked: number; lost: number; biggest: number }>(
      `SELECT count(*)::int AS chunked, count(*) FILTER (WHERE outcome = 'lease_expired')::int AS lost,
              (SELECT coalesce(max(n), 0)::int FROM (SELECT count(*) AS n FROM action_attempts WHERE chunk_of IS NOT NULL GROUP BY chunk_of, worker_id, attempt) AS s) AS biggest
       FROM action_attempts WHERE chunk_of IS NOT NULL`,
    );
    console.log(`chunks through crashes: ${kills} kills, ${cut} connections cut, one blackhole; attempts in chunks ${JSON.stringify(rows[0])}`);
    expect(rows[0].biggest).toBeGreaterThan(1);
    expect(rows[0].lost).toBeGreaterThan(0); // kills and the blackhole did cut chunks
    expect(kills).toBeGreaterThanOrEqual(4);
    expect(cut).toBeGreaterThan(0);
    // The handlers' own log: no two executions of one group at once.
    expect(executionOverlaps(readExecutions(execLog, deaths))).toEqual([]);
  }
});
