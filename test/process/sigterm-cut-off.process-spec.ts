// @run-alone (test/support/run-alone.ts): exits within 2 s and 7 s of a SIGTERM.
import { POOL_CLOSE_TIMEOUT_MS } from '../../src/database/queue-database.closer';
import { LISTEN_STOP_TIMEOUT_MS } from '../../src/queue/wake/notification-listener.service';
import { HTTP_CLOSE_TIMEOUT_MS } from '../../src/service/bounded-close-express-adapter';
import { JOB_STOP_TIMEOUT_MS } from '../../src/shutdown-steps';
import { BlackholeProxy, errorLogLines, ServiceProcess, sleep, startBlackholeProxy, startServiceProcess, waitFor, withTestDatabase } from '../support';

const SHUTDOWN_TIMEOUT_MS = 1_000;
const ENV = { LEASE_MS: '1500', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), REAPER_INTERVAL_MS: '100', LOG_LEVEL: 'warn' };
/**
 * No handler runs in these tests, so a shutdown waits at most on: the schedule
 * ticker's and the reaper's rounds in flight (the latter beside the worker's
 * steps), the LISTEN connection's close, the HTTP requests in flight and the
 * pool's close; 1 s more for timers on a loaded machine. Well under the
 * service's own deadline (shutdown-deadline.ts), which would exit 1, not 0.
 */
const BOUND_MS = 2 * JOB_STOP_TIMEOUT_MS + LISTEN_STOP_TIMEOUT_MS + HTTP_CLOSE_TIMEOUT_MS + POOL_CLOSE_TIMEOUT_MS + 1_000;

/**
 * SIGTERMs `service` and waits for its exit, at most `boundMs` plus 5 s (then
 * SIGKILLs it, and the result says TIMEOUT with its output), so a shutdown
 * that hangs fails in seconds, not at jest's timeout.
 */
async function sigterm(service: ServiceProcess, boundMs: number): Promise<{ code: number | string; ms: number }> {
  const t0 = Date.now();
  service.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([service.exited, new Promise<'TIMEOUT'>((resolve) => (timer = setTimeout(() => resolve('TIMEOUT'), boundMs + 5_000)))]);
  clearTimeout(timer);
  const ms = Date.now() - t0;
  if (code === 'TIMEOUT') {
    await service.kill();
    return { code: `TIMEOUT; output:\n${service.output().slice(-4_000)}`, ms };
  }
  return { code, ms };
}

/**
 * An orchestrator SIGTERMs an instance cut off from its database (a
 * partition: connections hang, no RST) and expects it gone within its grace
 * period, at any moment, start-up included. Every step of the shutdown must
 * be bounded: here a background job's statement and an HTTP request are in
 * flight on connections that will never answer. Seen to hang before each
 * shutdown wait was bounded: the reaper's and the schedule ticker's hooks
 * awaited their round in flight, and the HTTP server's close its requests,
 * for as long as TCP keeps the connection (forever through this proxy).
 */
describe('SIGTERM with the database cut off: the process exits 0 within a bound', () => {
  const db = withTestDatabase('sigterm_cut_off');
  let proxy: BlackholeProxy;
  const procs: ServiceProcess[] = [];

  // A proxy per test: bytes a killed process sent into a cut stay buffered in the proxy and
  // would reach the next test's proxy at its restore (and could fire its blackholeOn).
  beforeEach(async () => {
    proxy = await startBlackholeProxy(db.url);
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
    await proxy.close();
  });

  const start = async (healthyWithinMs: number) => {
    const service = await startServiceProcess({ env: { ...ENV, DATABASE_URL: proxy.url }, healthyWithinMs });
    procs.push(service);
    return service;
  };

  it('with a reaper round and an HTTP request in flight on cut connections', async () => {
    const service = await start(30_000);
    // The reaper runs every 100 ms: its next statement is the one that hangs.
    await proxy.blackholeOn('aq_reap_expired_leases');
    // On a pooled connection that will never answer (or a new one that never connects).
    const request = fetch(`${service.url}/stats`).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    await sleep(100);
    const { code, ms } = await sigterm(service, BOUND_MS);
    console.log(`SIGTERM with a reaper round and a request in flight on cut connections: exit ${code} after ${ms} ms (bound ${BOUND_MS} ms)`);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(BOUND_MS);
    // Nothing failed but the request the shutdown cut (logged by pino-http when it is logged before the exit).
    expect(errorLogLines(service.output()).filter((line) => line.msg !== 'request errored')).toEqual([]);
    // Answered or cut, but not left hanging.
    expect(await request).toBeDefined();
  });

  it('during start-up, with the schedule ticker’s first round in flight on a cut connection', async () => {
    const cut = proxy.blackholeOn('action_schedules');
    const service = await start(0);
    await cut;
    const { code, ms } = await sigterm(service, BOUND_MS);
    console.log(`SIGTERM during start-up with the ticker's first round in flight: exit ${code} after ${ms} ms (bound ${BOUND_MS} ms)`);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(errorLogLines(service.output())).toEqual([]);
  });

  it('during start-up, while connecting to a database that does not answer', async () => {
    proxy.blackhole();
    const before = proxy.accepted();
    const service = await start(0);
    // The service is connecting: the proxy accepted its connection, which will hang.
    await waitFor(async () => proxy.accepted() > before || undefined, 20_000, 10);
    const { code, ms } = await sigterm(service, 2_000);
    console.log(`SIGTERM while connecting: exit ${code} after ${ms} ms`);
    // Nothing to drain yet: it exits at once, as it does after start-up (code 0, not killed by the signal).
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2_000);
  });
});
