import { Client } from 'pg';
import { executionOverlaps, newExecutionLogPath, readExecutions, startFixtureService, supervise, Supervisor, waitFor, withTestDatabase } from '../support';

/**
 * A handler that blocks the event loop (5 s busy loop,
 * LEASE_MS=3000) sends no heartbeat; another instance would take its actions
 * over while it still runs them. The watchdog thread stops the instance
 * before any lease can expire, releasing its actions first. Two supervised
 * instances; the check runs on the handlers' real execution log.
 */
describe('event-loop watchdog', () => {
  const db = withTestDatabase('watchdog');
  let c: Client;
  let supervisor: Supervisor | null = null;
  const execLog = newExecutionLogPath('watchdog');

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
  });

  it('stops an instance whose loop a handler blocks before its leases can expire: no overlap in real execution, the culprit charged', async () => {
    const env = { LOG_LEVEL: 'warn', LEASE_MS: '3000', REAPER_INTERVAL_MS: '200', WORKER_POLL_INTERVAL_MS: '200', EXEC_LOG: execLog };
    supervisor = await supervise(2, (slot) => startFixtureService(db.url, { ...env, WORKER_ID: `wd-${slot}-${Date.now()}` }));
    // The busy handler (capped at 2 attempts, policy skip) first in group 1, a well-behaved
    // sleeper after it; sleepers in other groups run beside it.
    const { rows } = await c.query<{ id: string; type: string }>(
      `INSERT INTO actions (lock_id, type, payload, on_failure)
       VALUES (1, 'test.busy', '{"ms": 5000}', 'skip'), (1, 'test.sleep', '{"ms": 200}', 'block'),
              (2, 'test.sleep', '{"ms": 2500}', 'block'), (3, 'test.sleep', '{"ms": 2500}', 'block'), (4, 'test.sleep', '{"ms": 2500}', 'block')
       RETURNING id::text, type`,
    );
    const busy = rows.find((r) => r.type === 'test.busy')!.id;
    const others = rows.filter((r) => r.id !== busy).map((r) => r.id);
    await waitFor(async () => {
      const { rows: left } = await c.query(`SELECT count(*)::int AS n FROM actions WHERE status NOT IN ('done', 'failed', 'cancelled')`);
      return left[0].n === 0;
    }, 60_000).catch(async (error) => {
      const state = await c.query(
        `SELECT id, lock_id, type, status, attempts, charged_attempts, quarantined, uncharged_losses, run_at > now() AS later, lease_owner FROM actions ORDER BY id`,
      );
      const trace = await c.query(`SELECT action_id, attempt, worker_id, outcome, left(error, 100) AS error FROM action_attempts ORDER BY id`);
      console.log(JSON.stringify({ state: state.rows, trace: trace.rows, exits: [...supervisor!.exits] }, null, 1));
      console.log(supervisor!.all.map((p) => p.output().slice(-3000)).join('\n-----\n'));
      throw error;
    });

    const executions = readExecutions(execLog, supervisor.deaths);
    expect(executionOverlaps(executions)).toEqual([]);
    // The culprit ran twice (its cap), each time its instance was stopped, and it failed.
    const busyRuns = executions.filter((e) => e.id === busy);
    expect(busyRuns).toHaveLength(2);
    const { rows: culprit } = await c.query(`SELECT status, attempts, charged_attempts, last_error FROM actions WHERE id = $1`, [busy]);
    expect(culprit[0]).toMatchObject({ status: 'failed', attempts: 2, charged_attempts: 2 });
    expect(culprit[0].last_error).toContain('blocked the event loop');
    // The others are done and were never charged.
    const { rows: rest } = await c.query(`SELECT status, charged_attempts FROM actions WHERE id = ANY($1::bigint[])`, [others]);
    expect(rest).toEqual(others.map(() => ({ status: 'done', charged_attempts: 0 })));
    // Stopped instances were killed by their watchdog, which said why.
    expect([...supervisor.exits.values()].filter((code) => code === 'SIGKILL').length).toBeGreaterThanOrEqual(2);
    expect(supervisor.all.map((p) => p.output()).join('\n')).toContain('Event loop stalled');
  });
});
