import { Client } from 'pg';
import { connect, newExecutionLogPath, OwnPostgres, readExecutions, ServiceProcess, sleep, startFixtureService, startOwnPostgres, waitFor } from '../support';

const LEASE_MS = 4_000;
/**
 * How long the database stays down: past two leases, so that every lease held
 * at the stop passes its local deadline (at most LEASE_MS after the last
 * heartbeat) and its database expiry while the finishes wait.
 */
const DOWN_MS = 2 * LEASE_MS + 1_000;
const GROUPS = 60;
const PER_GROUP = 5;

/**
 * A PostgreSQL restart with finishes pending must not make
 * an action whose handler returned run again. Two instances work through
 * short actions (at most 600 ms, well inside the LEASE_MS/3 + LEASE_MS/4
 * before any handler could be fenced) on a cluster of the test's own, which
 * is stopped (fast: every connection cut) while handlers run, kept down past
 * two leases, and started again. The handlers that return meanwhile cannot
 * write their outcome; the instances, alive throughout, keep retrying it and
 * keep their leases. Counted on the handlers' own execution log: every action
 * ran exactly once.
 *
 * Seen to fail without the fix (the finisher gave up a failed write once its
 * lease's local deadline passed, the lease was no longer listed as held, and
 * the first reaper round after the restart released it as "granted by a
 * statement whose answer never arrived": the action ran a second time).
 */
describe('a PostgreSQL restart while finishes are pending', () => {
  let pg: OwnPostgres | undefined;
  const procs: ServiceProcess[] = [];
  const execLog = newExecutionLogPath('restart-finish');

  afterAll(async () => {
    await pg?.destroy();
  });

  it('runs no action twice whose handler returned while the database was away', async () => {
    pg = await startOwnPostgres();
    try {
      await runThroughRestart(pg);
    } finally {
      for (const p of procs.splice(0)) await p.kill();
    }
  }, 60_000);

  async function runThroughRestart(pg: OwnPostgres): Promise<void> {
    const env = { LOG_LEVEL: 'warn', LEASE_MS: String(LEASE_MS), REAPER_INTERVAL_MS: '200', WORKER_CONCURRENCY: '16', EXEC_LOG: execLog };
    // One at a time: the first migrates the new database.
    procs.push(await startFixtureService(pg.url(), { ...env, WORKER_ID: 'restart-a' }));
    procs.push(await startFixtureService(pg.url(), { ...env, WORKER_ID: 'restart-b' }));

    let c: Client = await connect(pg.url());
    const { rows: inserted } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT g, 'test.sleep', jsonb_build_object('ms', 200 + (g * 7 + i * 13) % 400)
       FROM generate_series(1, $2::int) AS i, generate_series(1, $1::int) AS g
       ORDER BY i, g
       RETURNING id::text`,
      [GROUPS, PER_GROUP],
    );
    const ids = inserted.map((r) => r.id);
    // Stop mid-flow: some done, handlers running in both instances.
    await waitFor(async () => {
      const { rows } = await c.query<{ done: number; running: number }>(
        `SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status = 'running')::int AS running FROM actions`,
      );
      return rows[0].done >= 40 && rows[0].running >= 16;
    }, 30_000);
    await c.end().catch(() => undefined);

    // From the stop's start: fast shutdown cuts every connection at once, then takes a while to end.
    const downAt = Date.now();
    await pg.stop();
    await sleep(Math.max(0, DOWN_MS - (Date.now() - downAt))); // the outage's length, not a synchronisation
    await pg.start();
    const upAt = Date.now();

    c = await connect(pg.url());
    try {
      await waitFor(
        async () => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status = 'done'`)).rows[0].n === ids.length,
        30_000,
        200,
      );
      const executions = readExecutions(execLog);
      // Handlers that returned with the database away: their finish was pending through the restart.
      const returnedWhileDown = executions.filter((e) => e.end > downAt && e.end < upAt).length;
      const runs = new Map<string, number>();
      for (const e of executions) runs.set(e.id, (runs.get(e.id) ?? 0) + 1);
      const twice = [...runs].filter(([, n]) => n > 1).map(([id]) => id);
      const traces = twice.length
        ? (
            await c.query<{ action_id: string; attempt: number; outcome: string; error: string | null }>(
              `SELECT action_id::text, attempt, outcome, error FROM action_attempts WHERE action_id = ANY($1) ORDER BY action_id, attempt`,
              [twice.slice(0, 5)],
            )
          ).rows
        : [];
      console.log(
        `restart with pending finishes: down ${upAt - downAt} ms, ${returnedWhileDown} handler(s) returned meanwhile; ${twice.length} action(s) ran twice`,
      );
      expect(procs.map((p) => p.child.exitCode)).toEqual([null, null]);
      expect(returnedWhileDown).toBeGreaterThanOrEqual(5);
      expect({ twice, traces }).toEqual({ twice: [], traces: [] });
      expect(runs.size).toBe(ids.length);
    } finally {
      await c.end();
    }
  }
});
