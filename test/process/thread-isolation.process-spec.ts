import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { insertAction, ServiceProcess, sleep, startFixtureService, waitFor, withTestDatabase } from '../support';

/**
 * Handlers declared with `isolation: 'thread'` run in a
 * worker thread. A timeout terminates the thread (the busy loop really stops),
 * an out-of-memory thread ends only its attempt with a precise error, and
 * neither stalls the heartbeats of the actions beside them (LEASE_MS=1500: a
 * stalled loop would fence them).
 */
describe('thread isolation', () => {
  const db = withTestDatabase('threads');
  let c: Client;
  let svc: ServiceProcess;

  beforeAll(async () => {
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', LEASE_MS: '1500', WORKER_POLL_INTERVAL_MS: '100' });
    c = await db.connect();
  });
  afterAll(async () => {
    await svc?.kill();
  });

  const insert = (lockId: number, type: string, payload: object) => insertAction(c, lockId, type, payload);
  const row = async (id: string) => (await c.query(`SELECT status, attempts, charged_attempts, result, last_error FROM actions WHERE id = $1`, [id])).rows[0];

  it('runs a well-behaved handler in a thread and stores its result', async () => {
    const id = await insert(1, 'test.thread-ok', { n: 21 });
    await waitFor(async () => (await row(id)).status === 'done', 15_000);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 1, result: { doubled: 42 } });
  });

  it('runs an ordered chunk in one thread: per-action results and a permanent failure cross back, the actions after it wait', async () => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, on_failure)
       SELECT 30, 'test.thread-chunk', jsonb_build_object('n', i, 'fail', i = 5), 'skip' FROM generate_series(1, 7) AS i ORDER BY i RETURNING id::text`,
    );
    const ids = rows.map((r) => r.id);
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE lock_id = 30 AND status IN ('pending', 'running')`)).rowCount === 0, 15_000);
    const { rows: final } = await c.query(`SELECT a.status, a.result, a.last_error FROM actions AS a WHERE a.lock_id = 30 ORDER BY a.id`);
    expect(final.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done', 'failed', 'done', 'done']);
    expect(final[1].result).toMatchObject({ doubled: 4 });
    expect(final[0].result.threadId).toBeGreaterThan(0); // ran in a worker thread
    expect(final[4].last_error).toContain(`action ${ids[4]} asked to fail`);
    // One chunk, one thread: every action's attempt names the chunk's first action (a failure under skip does not stop it).
    const { rows: trace } = await c.query(`SELECT t.chunk_of::text FROM action_attempts AS t WHERE t.lock_id = 30 ORDER BY t.action_id`);
    expect(trace.map((t) => t.chunk_of)).toEqual(ids.map(() => ids[0]));
  });

  it('terminates a busy thread at its timeout while the actions beside it keep their leases', async () => {
    const neighbour = await insert(2, 'test.sleep', { ms: 4_000 });
    const busy = await insert(3, 'test.thread-busy', { ms: 20_000 });
    const t0 = Date.now();
    await waitFor(async () => (await row(busy)).status === 'failed', 10_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const trace = await c.query(`SELECT outcome, error FROM action_attempts WHERE action_id = $1`, [busy]);
    expect(trace.rows).toEqual([{ outcome: 'timeout', error: 'HandlerTimeoutError: handler timed out after 1000 ms' }]);
    await waitFor(async () => (await row(neighbour)).status === 'done', 10_000);
    expect(await row(neighbour)).toMatchObject({ attempts: 1, charged_attempts: 0 });
    // The thread really stopped: the process is not burning a core for the 20 s the loop asked for.
    const stat = () => Number(readFileSync(`/proc/${svc.child.pid}/stat`, 'utf8').split(' ')[13]);
    const ticks = stat();
    await sleep(1_000);
    expect(stat() - ticks).toBeLessThan(50); // under half a core over one second (100 ticks/s)
  });

  it('ends only the attempt whose thread runs out of memory, with a precise error, and keeps the instance up', async () => {
    const neighbour = await insert(4, 'test.sleep', { ms: 3_000 });
    const oom = await insert(5, 'test.thread-oom', {});
    await waitFor(async () => (await row(oom)).status === 'failed', 30_000);
    expect((await row(oom)).last_error).toMatch(/^handler thread ran out of memory/);
    await waitFor(async () => (await row(neighbour)).status === 'done', 10_000);
    expect(await row(neighbour)).toMatchObject({ attempts: 1, charged_attempts: 0 });
    expect(svc.child.exitCode).toBeNull();
  });

  it('counts a timeout from when the handler starts, not while a cold thread loads it', async () => {
    // Four at once: four new threads, each loading the handler's module (more than its 300 ms timeout).
    const ids = await Promise.all([11, 12, 13, 14].map((lockId) => insert(lockId, 'test.thread-quick', { ms: 50 })));
    await waitFor(async () => (await Promise.all(ids.map(row))).every((r) => r.status !== 'pending' && r.status !== 'running'), 30_000);
    for (const id of ids) expect(await row(id)).toMatchObject({ status: 'done', attempts: 1, result: { quick: true } });
  });

  it('refuses a result too large for its thread to write, and keeps the instance up', async () => {
    const neighbour = await insert(6, 'test.sleep', { ms: 2_000 });
    const big = await insert(7, 'test.thread-big-result', {});
    await waitFor(async () => (await row(big)).status === 'failed', 30_000);
    expect((await row(big)).last_error).toMatch(/^PermanentFailureError: handler result is over \d+ MB as JSON/);
    await waitFor(async () => (await row(neighbour)).status === 'done', 10_000);
    expect(await row(neighbour)).toMatchObject({ attempts: 1, charged_attempts: 0 });
    expect(svc.child.exitCode).toBeNull();
  });
});
