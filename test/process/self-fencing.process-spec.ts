// @run-alone (test/support/run-alone.ts): a handler must stop within LEASE_MS / 6 of its lease.
import { Client } from 'pg';
import {
  BlackholeProxy,
  executionOverlaps,
  executionsPastDeadline,
  newExecutionLogPath,
  readExecutions,
  ServiceProcess,
  startBlackholeProxy,
  startFixtureService,
  waitFor,
  withTestDatabase,
} from '../support';

const LEASE_MS = 1_500;

/**
 * A worker cut off from the database (its traffic blackholed: no
 * RST, connections hang) must stop its handler before its lease can expire
 * elsewhere, while a second instance, which reaches the database, watches and
 * takes the action over. Checked on the handlers' real execution log, not only
 * on the trace.
 */
describe('self-fencing: a worker cut off from the database', () => {
  const db = withTestDatabase('self_fencing');
  let c: Client;
  let proxy: BlackholeProxy;
  const procs: ServiceProcess[] = [];
  const execLog = newExecutionLogPath('fence');

  beforeAll(async () => {
    proxy = await startBlackholeProxy(db.url);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
  });

  it('aborts its handler at least LEASE_MS/6 before its lease expires in the database, and says it is fenced', async () => {
    const env = { LEASE_MS: String(LEASE_MS), REAPER_INTERVAL_MS: '100', WORKER_POLL_INTERVAL_MS: '100', EXEC_LOG: execLog, LOG_LEVEL: 'warn' };
    const cutOff = await startFixtureService(proxy.url, { ...env, WORKER_ID: 'cut-off' });
    procs.push(cutOff);
    c = await db.connect();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (1, 'test.sleep', '{"ms": 12000}') RETURNING id::text`);
    await waitFor(async () => readExecutions(execLog).some((e) => e.id === id && e.pid === cutOff.child.pid));
    const watcher = await startFixtureService(db.url, { ...env, WORKER_ID: 'watcher' });
    procs.push(watcher);

    proxy.blackhole();
    const cutAt = Date.now();
    // The cut-off worker's lease as the database has it (its last heartbeat that got through),
    // read until the watcher takes the action over; epoch ms of the database clock, the same
    // host's clock as the handlers' Date.now().
    let leaseExpiresMs = 0;
    let fencedHealth: unknown;
    const done = await waitFor(
      async () => {
        const { rows } = await c.query<{ status: string; attempts: number; lease_owner: string | null; expires_ms: number | null }>(
          `SELECT status, attempts, lease_owner, extract(epoch FROM lease_expires_at) * 1000 AS expires_ms FROM actions WHERE id = $1`,
          [id],
        );
        if (rows[0].lease_owner === 'cut-off' && rows[0].expires_ms !== null) leaseExpiresMs = Math.max(leaseExpiresMs, Number(rows[0].expires_ms));
        if (fencedHealth === undefined && readExecutions(execLog).some((e) => e.id === id && e.pid === cutOff.child.pid && e.end !== Infinity)) {
          // Fenced: the worker says so on /health (its pause is what keeps it from claiming once it can reach the database).
          fencedHealth = await fetch(`${cutOff.url}/health`, { signal: AbortSignal.timeout(5_000) })
            .then((r) => r.json() as Promise<{ details?: { worker?: { selfFenced?: boolean } } }>)
            .then(
              (b) => b.details?.worker?.selfFenced ?? null,
              (e: Error) => e.message,
            );
        }
        return rows[0].status === 'done' ? rows[0] : null;
      },
      30_000,
      20,
    );
    expect(done).toMatchObject({ status: 'done', attempts: 2 });
    expect(leaseExpiresMs).toBeGreaterThan(0);

    const runs = readExecutions(execLog).filter((e) => e.id === id);
    expect(runs.map((r) => `${r.attempt}@${r.pid === cutOff.child.pid ? 'cut-off' : 'watcher'}`)).toEqual(['1@cut-off', '2@watcher']);
    const [first, second] = runs;
    console.log(
      `self-fencing: handler stopped ${first.end - cutAt} ms after the cut and ${leaseExpiresMs - first.end} ms before its lease_expires_at ` +
        `(bound LEASE_MS/6 = ${LEASE_MS / 6} ms); the watcher started it ${second.start - first.end} ms later`,
    );
    // The cut-off handler stopped on its own signal at least LEASE_MS/6 before the lease the
    // database holds for it expires (the documented bound; 30 ms for timer jitter). Measured to
    // the lease, not to the watcher's start, which adds reaper and poll delay. Seen to fail with
    // the fence moved to LEASE_MS/12 before the local deadline (lease-timing.ts).
    expect(leaseExpiresMs - first.end).toBeGreaterThanOrEqual(LEASE_MS / 6 - 30);
    expect(first.end).toBeLessThan(cutAt + LEASE_MS);
    expect(executionOverlaps(readExecutions(execLog))).toEqual([]);
    expect(executionsPastDeadline(runs, [{ id, attempt: 1, deadlineMs: leaseExpiresMs - LEASE_MS / 6 + 30 }])).toEqual([]);
    expect(cutOff.output()).toContain('Self-fencing');
    // It said it was fenced (and so takes no new work) while cut off. (An action enqueued
    // meanwhile running elsewhere proved nothing: a cut-off worker cannot claim anyway.)
    expect(fencedHealth).toBe(true);

    // Back on the network, it heartbeats, resumes and runs work again.
    proxy.restore();
    await watcher.stop();
    const {
      rows: [{ id: third }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (3, 'test.sleep', '{"ms": 10}') RETURNING id::text`);
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [third])).rows[0].status === 'done', 20_000);
  });

  it('SIGTERM while cut off: the process still exits, within a bound, instead of waiting on the database', async () => {
    proxy.restore();
    const env = { LEASE_MS: String(LEASE_MS), SHUTDOWN_TIMEOUT_MS: '1000', EXEC_LOG: execLog, LOG_LEVEL: 'warn' };
    const cutOff = await startFixtureService(proxy.url, { ...env, WORKER_ID: 'cut-off-2' });
    procs.push(cutOff);
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (4, 'test.sleep', '{"ms": 12000}') RETURNING id::text`);
    await waitFor(async () => readExecutions(execLog).some((e) => e.id === id && e.pid === cutOff.child.pid));
    proxy.blackhole();
    const signalledAt = Date.now();
    const code = await cutOff.stop();
    const tookMs = Date.now() - signalledAt;
    console.log(`SIGTERM while cut off: exit ${code} after ${tookMs} ms`);
    // Shutdown timeout 1 s, abort grace <= 2 s, LISTEN close <= 1 s, pool close <= 2 s, the lease's own deadline (<= LEASE_MS) for the release.
    expect(tookMs).toBeLessThan(1_000 + 2_000 + 1_000 + 2_000 + LEASE_MS + 1_000);
    proxy.restore();
  });
});
