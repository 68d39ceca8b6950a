import { Client } from 'pg';
import { Execution, executionOverlaps, newExecutionLogPath, readExecutions, ServiceProcess, startFixtureService, waitFor, withTestDatabase } from '../support';

/**
 * One holder per group under `isolation: 'thread'` (G2), as the handlers saw
 * it: every way a thread attempt ends before its handler settles (a stray
 * rejection, a stray timer error, a timeout, a cancel, running out of memory)
 * must wait for its thread to exit before the retry or the next action of
 * the group runs. The handler (test.thread-hold) holds its group in blocking
 * slices of 1-2 s that terminating its thread cannot cut short (a synchronous
 * native call), ignoring its signal; the execution log holds each handler's
 * start and end and each thread's exit, and no two executions of one group
 * may overlap in real time. Warm idle threads make the retry start at once,
 * as it would in a busy service. Seen to fail without the fix: the retry (or
 * the follower) ran 0.7-1 s before the first attempt's thread had exited.
 */
describe('one holder per group under thread isolation', () => {
  const db = withTestDatabase('thread_one_holder');
  const execLog = newExecutionLogPath('thread-one-holder');
  let c: Client;
  let svc: ServiceProcess;

  beforeAll(async () => {
    svc = await startFixtureService(db.url, {
      LOG_LEVEL: 'error',
      LEASE_MS: '3000',
      WORKER_POLL_INTERVAL_MS: '100',
      WORKER_CONCURRENCY: '8',
      EXEC_LOG: execLog,
    });
    c = await db.connect();
    // Warm threads in each pool, so that a retry gets one at once.
    await c.query(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT 1000 + i, t, '{"ms": 500, "sliceMs": 500}' FROM generate_series(1, 4) AS i, unnest(ARRAY['test.thread-hold', 'test.thread-hold-timeout']) AS t`,
    );
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE status <> 'done'`)).rowCount === 0, 30_000, 100);
  }, 60_000);
  afterAll(async () => {
    await svc?.kill();
  });

  /**
   * Runs a group of two: `type` with `payload` (policy skip), then a quick
   * follower; `during` runs once the first has started. Returns the group's
   * executions once both have ended.
   */
  async function group(lockId: number, type: string, payload: object, during?: (headId: string) => Promise<void>): Promise<Execution[]> {
    // Two neighbours of its type take the first idle threads (the pool hands
    // work to its oldest idle thread first): the head runs in a later one, and
    // its retry, once they are done, in another thread than the head's.
    const { rows: neighbours } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload) SELECT $1 * 10 + i, $2, '{"ms": 600, "sliceMs": 600}' FROM generate_series(1, 2) AS i RETURNING id::text`,
      [100 + lockId, type === 'test.thread-hold-oom' ? 'test.thread-hold' : type],
    );
    await waitFor(async () => neighbours.every((n) => readExecutions(execLog).some((e) => e.id === n.id)), 15_000, 20);
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, on_failure)
       VALUES ($1, $2, $3, 'skip'), ($1, 'test.thread-hold', '{"ms": 0}', 'block') RETURNING id::text`,
      [lockId, type, JSON.stringify(payload)],
    );
    const ids = rows.map((r) => r.id);
    if (during) {
      await waitFor(async () => readExecutions(execLog).some((e) => e.id === ids[0]), 15_000, 50);
      await during(ids[0]);
    }
    await waitFor(
      async () => (await c.query(`SELECT 1 FROM actions WHERE id = ANY($1::bigint[]) AND status NOT IN ('done', 'failed', 'cancelled')`, [ids])).rowCount === 0,
      30_000,
      100,
    );
    expect(svc.child.exitCode).toBeNull();
    return readExecutions(execLog).filter((e) => e.lock === String(lockId));
  }

  /** Asserts that none of `executions` overlaps another and that none is still running; prints the closest gap. */
  function expectOneHolder(label: string, executions: Execution[]): void {
    expect(executions.filter((e) => e.end === Infinity)).toEqual([]);
    expect(executionOverlaps(executions)).toEqual([]);
    const sorted = [...executions].sort((a, b) => a.start - b.start);
    const gaps = sorted.slice(1).map((e, i) => e.start - sorted[i].end);
    process.stdout.write(`thread one holder, ${label}: ${executions.length} executions, closest gap ${Math.min(...gaps)} ms\n`);
  }

  it.each([
    ['a stray rejection', 'rejection', 1],
    ['a stray timer error', 'timer', 2],
  ])(
    'retries after %s only once the thread has exited',
    async (label, stray, lockId) => {
      const executions = await group(lockId, 'test.thread-hold', { stray, ms: 3_000, sliceMs: 1_000 });
      expectOneHolder(label, executions);
      expect(executions).toHaveLength(3); // two attempts (both failed by their stray) and the follower
      const { rows } = await c.query(`SELECT outcome, error FROM action_attempts WHERE lock_id = $1 AND outcome <> 'done' ORDER BY id`, [lockId]);
      expect(rows.map((r: { outcome: string; error: string }) => `${r.outcome}: ${r.error.split(' from action')[0]}`)).toEqual(
        [1, 2].map(() => `error: stray ${stray === 'timer' ? 'timer error' : 'rejection'}`),
      );
    },
    45_000,
  );

  it('retries after a timeout only once the thread has exited', async () => {
    const executions = await group(3, 'test.thread-hold-timeout', { ms: 4_000, sliceMs: 2_000 });
    expectOneHolder('timeout', executions);
    expect(executions).toHaveLength(3);
    const { rows } = await c.query(`SELECT outcome FROM action_attempts WHERE lock_id = 3 ORDER BY id`);
    expect(rows.map((r: { outcome: string }) => r.outcome)).toEqual(['timeout', 'timeout', 'done']);
  }, 45_000);

  it('runs the next action after a cancel only once the thread has exited', async () => {
    const executions = await group(4, 'test.thread-hold', { ms: 6_000, sliceMs: 2_000 }, async (id) => {
      await c.query(`UPDATE actions SET cancel_requested_at = now() WHERE id = $1`, [id]);
    });
    expectOneHolder('cancel', executions);
    expect(executions).toHaveLength(2);
    const { rows } = await c.query(`SELECT outcome FROM action_attempts WHERE lock_id = 4 ORDER BY id`);
    expect(rows.map((r: { outcome: string }) => r.outcome)).toEqual(['cancelled', 'done']);
  }, 45_000);

  it('retries after the thread ran out of memory only once it has exited', async () => {
    const executions = await group(5, 'test.thread-hold-oom', {});
    expectOneHolder('out of memory', executions);
    expect(executions).toHaveLength(3);
  }, 45_000);
});
