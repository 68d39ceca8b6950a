// @run-alone (test/support/run-alone.ts): a cut-off thread must exit within the self-fencing margin of its lease.
import { Client } from 'pg';
import {
  BlackholeProxy,
  executionOverlaps,
  newExecutionLogPath,
  readExecutions,
  ServiceProcess,
  startBlackholeProxy,
  startFixtureService,
  waitFor,
  withTestDatabase,
} from '../support';

const LEASE_MS = 3_000;

/**
 * One holder per group under `isolation: 'thread'` (G2) when the instance
 * stops a thread attempt itself: on shutdown, and when it fences itself off
 * (cut off from the database). The handler (test.thread-hold) ignores its
 * signal and holds its group in blocking slices that terminating its thread
 * cannot cut short; the attempt must end (and its action be released) only
 * once that thread has exited, so the instance that takes the action over
 * never runs it beside the first. Checked on the execution log (handlers'
 * start and end, threads' exits, the stopped process's death) in real time.
 * The shutdown case was seen to fail without the fix (the other instance
 * started the action about 1.5 s before the first thread exited).
 */
describe('one holder per group under thread isolation, when the instance stops the attempt', () => {
  const db = withTestDatabase('thread_one_holder_stops');
  const execLog = newExecutionLogPath('thread-one-holder-stops');
  const env = {
    LOG_LEVEL: 'error',
    LEASE_MS: String(LEASE_MS),
    REAPER_INTERVAL_MS: '200',
    WORKER_POLL_INTERVAL_MS: '100',
    SHUTDOWN_TIMEOUT_MS: '300',
    EXEC_LOG: execLog,
  };
  const procs: ServiceProcess[] = [];
  const deaths = new Map<number, number>();
  let proxy: BlackholeProxy;
  let c: Client;

  beforeAll(async () => {
    proxy = await startBlackholeProxy(db.url);
    c = await db.connect();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const start = async (url: string, id: string) => {
    const svc = await startFixtureService(url, { ...env, WORKER_ID: id });
    const pid = svc.child.pid!;
    void svc.exited.then(() => deaths.set(pid, Date.now()));
    procs.push(svc);
    return svc;
  };

  /** Inserts a holder (policy skip) and a quick follower in group `lockId`; returns their ids once the holder has started. */
  async function holdGroup(lockId: number, payload: object): Promise<string[]> {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, on_failure)
       VALUES ($1, 'test.thread-hold', $2, 'skip'), ($1, 'test.thread-hold', '{"ms": 0}', 'block') RETURNING id::text`,
      [lockId, JSON.stringify(payload)],
    );
    const ids = rows.map((r) => r.id);
    await waitFor(async () => readExecutions(execLog).some((e) => e.id === ids[0]), 20_000, 20);
    return ids;
  }

  const ended = async (ids: string[]) =>
    (await c.query(`SELECT 1 FROM actions WHERE id = ANY($1::bigint[]) AND status NOT IN ('done', 'failed', 'cancelled')`, [ids])).rowCount === 0;

  it('ends a self-fenced attempt only once its thread has exited, before its lease can expire', async () => {
    // Only the cut-off instance runs when the holder starts; the watcher, started next, takes it over.
    const cutOff = await start(proxy.url, 'stops-cut-off');
    const ids = await holdGroup(2, { ms: 30_000, laterMs: 500, sliceMs: 200 });
    const watcher = await start(db.url, 'stops-watcher');
    proxy.blackhole();
    let leaseExpiresMs = 0;
    await waitFor(
      async () => {
        const { rows } = await c.query<{ owner: string | null; expires_ms: number | null }>(
          `SELECT lease_owner AS owner, extract(epoch FROM lease_expires_at) * 1000 AS expires_ms FROM actions WHERE id = $1`,
          [ids[0]],
        );
        if (rows[0].owner === 'stops-cut-off' && rows[0].expires_ms !== null) leaseExpiresMs = Math.max(leaseExpiresMs, Number(rows[0].expires_ms));
        return ended(ids);
      },
      40_000,
      50,
    );
    proxy.restore();
    const executions = readExecutions(execLog, deaths).filter((e) => e.lock === '2');
    expect(executions.filter((e) => e.end === Infinity)).toEqual([]);
    expect(executionOverlaps(executions)).toEqual([]);
    expect(executions.map((e) => `${e.id}#${e.attempt}@${e.pid === cutOff.child.pid ? 'cut-off' : 'watcher'}`)).toEqual([
      `${ids[0]}#1@cut-off`,
      `${ids[0]}#2@watcher`,
      `${ids[1]}#1@watcher`,
    ]);
    // Its thread had exited before the lease the database held for it could expire.
    expect(leaseExpiresMs).toBeGreaterThan(0);
    expect(executions[0].end).toBeLessThan(leaseExpiresMs);
    process.stdout.write(
      `thread one holder, self-fencing: the cut-off thread exited ${Math.round(leaseExpiresMs - executions[0].end)} ms before its lease expired\n`,
    );
    expect(watcher.child.exitCode).toBeNull();
  }, 50_000);

  it('releases an action on shutdown only once its thread has exited', async () => {
    // Two instances: the one that runs the holder is stopped.
    const a = await start(db.url, 'stops-a');
    const b = await start(db.url, 'stops-b');
    const ids = await holdGroup(1, { ms: 3_000, laterMs: 500, sliceMs: 3_000 });
    const holder = readExecutions(execLog).find((e) => e.id === ids[0])!;
    const [victim, other] = holder.pid === a.child.pid ? [a, b] : [b, a];
    const stopping = victim.stop();
    await waitFor(() => ended(ids), 30_000, 100);
    await stopping;
    const executions = readExecutions(execLog, deaths).filter((e) => e.lock === '1');
    expect(executions.filter((e) => e.end === Infinity)).toEqual([]);
    expect(executionOverlaps(executions)).toEqual([]);
    // The first attempt was cut short and released uncharged; the other instance ran it again, then the follower.
    expect(executions.map((e) => `${e.id}#${e.attempt}@${e.pid === victim.child.pid ? 'stopped' : 'other'}`)).toEqual([
      `${ids[0]}#1@stopped`,
      `${ids[0]}#2@other`,
      `${ids[1]}#1@other`,
    ]);
    const { rows } = await c.query(`SELECT outcome FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [ids[0]]);
    expect(rows.map((r: { outcome: string }) => r.outcome)).toEqual(['released', 'done']);
    process.stdout.write(
      `thread one holder, shutdown: the other instance started it ${executions[1].start - executions[0].end} ms after the first thread exited\n`,
    );
    expect(other.child.exitCode).toBeNull();
  }, 50_000);
});
