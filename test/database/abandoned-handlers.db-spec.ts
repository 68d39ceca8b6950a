import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { MisbehavingHandlersModule } from '../fixtures/misbehaving-handlers';
import { metricSample, newExecutionLogPath, readExecutions, sleep, startTestApp, waitFor, withTestDatabase } from '../support';

/**
 * A handler that ignores its signal must not keep its
 * lease (and its group) forever, and no out-of-band change of a running action
 * may let the next action of its group start while it may still run.
 */
describe('handlers that ignore their signal, and running actions changed from outside', () => {
  const db = withTestDatabase('abandoned');
  let c: Client;
  let app: INestApplication | null = null;
  const execLog = newExecutionLogPath('abandoned');

  beforeAll(async () => {
    process.env.EXEC_LOG = execLog;
    c = await db.connect();
  });
  afterEach(async () => {
    await app?.close();
    app = null;
  });
  afterAll(async () => {
    delete process.env.EXEC_LOG;
  });

  const start = async (env: Record<string, string>) => {
    const started = await startTestApp(db.url, { DEMO_HANDLERS: 'false', WORKER_POLL_INTERVAL_MS: '100', REAPER_INTERVAL_MS: '200', ...env }, [
      MisbehavingHandlersModule,
    ]);
    app = started.app;
    return started;
  };
  const insert = async (lockId: number, type: string, payload: object, extra = '') => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload${extra ? ', max_attempts, on_failure' : ''}) VALUES ($1, $2, $3${extra}) RETURNING id::text`,
      [lockId, type, JSON.stringify(payload)],
    );
    return rows[0].id;
  };
  const row = async (id: string) =>
    (await c.query(`SELECT status, attempts, charged_attempts, lease_owner, started_at, finished_at FROM actions WHERE id = $1`, [id])).rows[0];
  const trace = async (id: string) =>
    (await c.query(`SELECT attempt, outcome, error, finished_at FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [id])).rows;

  it('ends a timed-out attempt at its timeout, lets the group move on, and keeps the slot and a count of the stuck handler', async () => {
    const { url } = await start({ LEASE_MS: '3000', WORKER_CONCURRENCY: '2' });
    const a = await insert(10, 'test.deaf', { ms: 6_000 }, `, 1, 'skip'`);
    const b = await insert(10, 'test.sleep', { ms: 10 });
    const t0 = Date.now();
    await waitFor(async () => (await row(b)).status === 'done', 8_000);
    // A ended at its 1 s timeout (not after its 6 s sleep), failed under its budget of 1, and B ran.
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(await row(a)).toMatchObject({ status: 'failed', attempts: 1, charged_attempts: 1, lease_owner: null });
    const [t] = await trace(a);
    expect(t).toMatchObject({ attempt: 1, outcome: 'timeout' });
    expect(t.error).toContain('timed out after 1000 ms');
    // A's handler still runs: counted in /health and /metrics, its slot taken.
    const health = await request(url).get('/health');
    expect(health.body.details.worker).toMatchObject({ stuckHandlers: 1 });
    expect(metricSample((await request(url).get('/metrics')).text, 'action_queue_stuck_handlers')).toBe(1);
    // When it finally returns, its late result is discarded and the count drops.
    await waitFor(async () => readExecutions(execLog).some((e) => e.id === a && e.end !== Infinity), 10_000);
    await waitFor(async () => metricSample((await request(url).get('/metrics')).text, 'action_queue_stuck_handlers') === 0, 5_000);
    expect(await row(a)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await trace(a)).toHaveLength(1);
  });

  it('never runs more handlers than WORKER_CONCURRENCY: a stuck handler keeps its slot until it returns', async () => {
    await start({ LEASE_MS: '3000', WORKER_CONCURRENCY: '1' });
    const a = await insert(20, 'test.deaf', { ms: 3_000 }, `, 1, 'skip'`);
    const b = await insert(21, 'test.sleep', { ms: 10 });
    await waitFor(async () => (await row(b)).status === 'done', 10_000);
    const deaf = readExecutions(execLog).find((e) => e.id === a)!;
    const next = readExecutions(execLog).find((e) => e.id === b)!;
    // B (another group) waited for the one slot until A's handler really returned.
    expect(next.start).toBeGreaterThanOrEqual(deaf.end);
  });

  it('refuses a DELETE of a running action, so the next action of its group cannot start under it', async () => {
    await start({ LEASE_MS: '9000' });
    const a = await insert(30, 'test.sleep', { ms: 3_000 });
    const b = await insert(30, 'test.sleep', { ms: 10 });
    await waitFor(async () => (await row(a)).status === 'running');
    await expect(c.query(`DELETE FROM actions WHERE id = $1`, [a])).rejects.toThrow(/cannot delete action \d+: it is running/);
    await expect(c.query(`UPDATE actions SET status = 'cancelled' WHERE id = $1`, [a])).rejects.toThrow(/cannot change action \d+: it is running/);
    await expect(c.query(`UPDATE actions SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [a])).rejects.toThrow(/it is running/);
    await sleep(300);
    expect(await row(b)).toMatchObject({ status: 'pending', attempts: 0 });
    await waitFor(async () => (await row(b)).status === 'done', 10_000);
    const [ea, eb] = [a, b].map((id) => readExecutions(execLog).find((e) => e.id === id)!);
    expect(eb.start).toBeGreaterThanOrEqual(ea.end);
  });

  it('cancels a running action through its holder: the handler is aborted, it ends cancelled, and only then does the group move on', async () => {
    const { url } = await start({ LEASE_MS: '3000' });
    const a = await insert(40, 'test.sleep', { ms: 20_000 });
    const b = await insert(40, 'test.sleep', { ms: 10 });
    await waitFor(async () => (await row(a)).status === 'running');
    const res = await request(url).post(`/actions/${a}/cancel`).expect(200);
    expect(res.body).toMatchObject({ id: a, status: 'running' });
    expect(res.body.cancelRequestedAt).toEqual(expect.any(String));
    await waitFor(async () => (await row(b)).status === 'done', 8_000);
    expect(await row(a)).toMatchObject({ status: 'cancelled', attempts: 1, charged_attempts: 0 });
    expect((await trace(a)).map((t) => t.outcome)).toEqual(['cancelled']);
    const [ea, eb] = [a, b].map((id) => readExecutions(execLog).find((e) => e.id === id)!);
    expect(ea.end - ea.start).toBeLessThan(5_000);
    expect(eb.start).toBeGreaterThanOrEqual(ea.end);
  });

  it('cancels a running action whose handler ignores the abort once its lease has expired, never before', async () => {
    const { url } = await start({ LEASE_MS: '1500' });
    const a = await insert(50, 'test.stubborn', { ms: 8_000 });
    const b = await insert(50, 'test.sleep', { ms: 10 });
    await waitFor(async () => (await row(a)).status === 'running');
    await request(url).post(`/actions/${a}/cancel`).expect(200);
    await waitFor(async () => (await row(b)).status === 'done', 10_000);
    expect(await row(a)).toMatchObject({ status: 'cancelled', attempts: 1 });
    const [ta] = await trace(a);
    // The trace says cancelled, also when the lease had to expire.
    expect(ta).toMatchObject({ outcome: 'cancelled', error: 'cancelled: the handler did not stop; its lease expired' });
    // B started only after A's lease had expired and was reaped as cancelled.
    const bRow = await row(b);
    expect(bRow.started_at.getTime()).toBeGreaterThanOrEqual(ta.finished_at.getTime());
  });

  it('records the cancel of a handler that ignored its abort when it returns, before its lease expires, and only then lets the group move on', async () => {
    // LEASE_MS 6 000: the grace after a cancel is 2 s, the lease outlives the handler's 3.5 s.
    const { url } = await start({ LEASE_MS: '6000' });
    const a = await insert(51, 'test.stubborn', { ms: 3_500 });
    const b = await insert(51, 'test.sleep', { ms: 10 });
    await waitFor(async () => (await row(a)).status === 'running');
    await request(url).post(`/actions/${a}/cancel`).expect(200);
    await waitFor(async () => (await row(b)).status === 'done', 15_000);
    const aRow = await row(a);
    expect(aRow).toMatchObject({ status: 'cancelled', attempts: 1 });
    const traced = await trace(a);
    expect(traced).toHaveLength(1);
    expect(traced[0]).toMatchObject({ outcome: 'cancelled', error: expect.stringContaining('the handler stopped after its grace') });
    // Recorded when the handler returned (3.5 s), not when its lease expired (6 s or more after its start).
    const heldMs = traced[0].finished_at.getTime() - aRow.started_at.getTime();
    expect(heldMs).toBeGreaterThanOrEqual(3_400);
    expect(heldMs).toBeLessThan(5_500);
    expect((await row(b)).started_at.getTime()).toBeGreaterThanOrEqual(traced[0].finished_at.getTime());
    // The group's next action ran at its first attempt: not handed to a caller that drops it
    // (stranded, then released as "lease granted by a statement whose answer never arrived").
    expect((await trace(b)).map((t) => t.outcome)).toEqual(['done']);
    // And no slot stays taken: the instance is idle again.
    await waitFor(async () => metricSample((await request(url).get('/metrics')).text, 'action_queue_worker_busy_slots') === 0, 5_000);
  });
});
