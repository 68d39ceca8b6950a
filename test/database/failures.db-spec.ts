import { INestApplication, Module } from '@nestjs/common';
import request from 'supertest';
import { Client } from 'pg';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../../src/handlers';
import { LeaseLostError } from '../../src/queue/instance/abort-reasons';
import { AttemptFinisher } from '../../src/queue/attempt/attempt-finisher.service';
import { LeaseKeeper } from '../../src/queue/lease/lease-keeper.service';
import { monotonicNow } from '../../src/queue/instance/monotonic-clock';
import { ReaperService } from '../../src/queue/lease/reaper.service';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { LeasedActionRow } from '../../src/queue/sql/leased-action.sql';
import { WorkerSlots } from '../../src/queue/instance/worker-slots';
import { checkTrace, connect, metricSample, sleep, startTestApp, waitFor, withTestDatabase } from '../support';

/** Shared state of the test-only stalling handler. */
const stall = {
  abortReasons: [] as unknown[],
  runs: [] as { attempt: number; workerId: string }[],
  gate: null as null | { promise: Promise<void>; open: () => void },
};

/**
 * `test.stall`: attempt 1 hangs until the test opens the gate, ignoring its
 * abort signal (it only records the reason), then returns; later attempts
 * return at once. Stands in for a handler stuck in a call that cannot be
 * cancelled, or a worker that was paused (GC, partition).
 */
@ActionHandler('test.stall')
class StallHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    stall.runs.push({ attempt: ctx.attempt, workerId: ctx.workerId });
    if (ctx.attempt === 1) {
      ctx.signal.addEventListener('abort', () => stall.abortReasons.push(ctx.signal.reason), { once: true });
      await stall.gate!.promise;
    }
    return { by: ctx.workerId, attempt: ctx.attempt };
  }
}

@Module({ providers: [StallHandler] })
class StallModule {}

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('failure paths in one process', () => {
  const db = withTestDatabase('failures');
  let c: Client;
  const apps: INestApplication[] = [];

  afterAll(async () => {
    stall.gate?.open();
    for (const app of apps) await app.close().catch(() => undefined);
    await c?.end().catch(() => undefined);
  });

  /** Stalls worker `app`'s lease keeping (no heartbeat, no self-fencing), as a long GC pause or a frozen VM would. */
  function stallLeaseKeeping(app: INestApplication): { resumeHeartbeat: () => void } {
    const keeper = app.get(LeaseKeeper) as unknown as { beat: () => Promise<void>; fenceExpiring: () => void };
    keeper.beat = async () => undefined;
    keeper.fenceExpiring = () => undefined;
    return { resumeHeartbeat: () => delete (keeper as { beat?: unknown }).beat };
  }

  /** Records every attempt worker `app` sends to its finisher, and whether it was recorded. */
  function spyFinisher(app: INestApplication): { actionId: string; attempt: number; recorded: boolean }[] {
    const finisher = app.get(AttemptFinisher);
    const calls: { actionId: string; attempt: number; recorded: boolean }[] = [];
    const original = finisher.finish.bind(finisher);
    finisher.finish = async (...args: Parameters<AttemptFinisher['finish']>) => {
      const result = await original(...args);
      calls.push({ actionId: args[0].actionId, attempt: args[0].attempt, recorded: result.recorded });
      return result;
    };
    return calls;
  }

  it('fencing: a stalled holder loses its lease, is told through its AbortSignal when it comes back, and records nothing', async () => {
    const env = { DEMO_HANDLERS: 'false', WORKER_CONCURRENCY: '1', LEASE_MS: '600', REAPER_INTERVAL_MS: '100', WORKER_POLL_INTERVAL_MS: '100' };
    const a = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-A' }, [StallModule]);
    apps.push(a.app);
    c = await connect(db.url);
    stall.gate = gate();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES (501, 'test.stall') RETURNING id::text`);
    await waitFor(async () => stall.runs.some((r) => r.attempt === 1 && r.workerId === 'worker-A'));
    const stalled = stallLeaseKeeping(a.app);
    const finishes = spyFinisher(a.app);

    const b = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-B' }, [StallModule]);
    apps.push(b.app);
    // The lease expires, a reaper returns the action, B runs attempt 2 (quarantined: alone) and finishes it.
    const row = await waitFor(async () => {
      const r = await c.query(`SELECT status, attempts, result FROM actions WHERE id = $1`, [id]);
      return r.rows[0].status === 'done' ? r.rows[0] : null;
    }, 15_000);
    expect(row).toMatchObject({ status: 'done', attempts: 2, result: { by: 'worker-B', attempt: 2 } });

    // A's heartbeat comes back: it finds the lease gone and aborts the handler with the lease-lost reason.
    stalled.resumeHeartbeat();
    await waitFor(async () => stall.abortReasons.length > 0, 5_000);
    expect(stall.abortReasons[0]).toBeInstanceOf(LeaseLostError);
    expect(String((stall.abortReasons[0] as Error).message)).toContain(`lease of action ${id} attempt 1 was lost`);

    // The stale handler returns anyway: its attempt ended when the lease was found lost, so nothing is sent.
    stall.gate.open();
    await sleep(300);
    expect(finishes).toEqual([]);
    const after = await c.query(`SELECT status, attempts, result, lease_owner FROM actions WHERE id = $1`, [id]);
    expect(after.rows[0]).toMatchObject({ status: 'done', attempts: 2, result: { by: 'worker-B', attempt: 2 }, lease_owner: null });
    const trace = await c.query(`SELECT attempt, worker_id, outcome FROM action_attempts WHERE action_id = $1 ORDER BY attempt, id`, [id]);
    expect(trace.rows).toEqual([
      { attempt: 1, worker_id: 'worker-A', outcome: 'lease_expired' },
      { attempt: 2, worker_id: 'worker-B', outcome: 'done' },
    ]);
    // Both attempts really ran.
    expect(stall.runs.map((r) => `${r.attempt}:${r.workerId}`)).toEqual(['1:worker-A', '2:worker-B']);
    for (const app of apps.splice(0)) await app.close();
  });

  it('fencing: a late completion sent before the holder notices its lost lease is refused by the database', async () => {
    stall.runs.length = 0;
    stall.abortReasons.length = 0;
    const env = { DEMO_HANDLERS: 'false', WORKER_CONCURRENCY: '1', LEASE_MS: '600', REAPER_INTERVAL_MS: '100', WORKER_POLL_INTERVAL_MS: '100' };
    const a = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-C' }, [StallModule]);
    apps.push(a.app);
    stall.gate = gate();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES (502, 'test.stall') RETURNING id::text`);
    await waitFor(async () => stall.runs.some((r) => r.attempt === 1 && r.workerId === 'worker-C'));
    stallLeaseKeeping(a.app);
    const finishes = spyFinisher(a.app);
    const b = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-D' }, [StallModule]);
    apps.push(b.app);
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'done', 15_000);

    // C's handler returns while C still believes it holds the lease: the fenced statement says no.
    stall.gate.open();
    await waitFor(async () => finishes.length > 0, 5_000);
    expect(finishes).toEqual([{ actionId: id, attempt: 1, recorded: false }]);
    // ...and counts it (seen to fail with WorkerMetrics.fencedCompletion's increment removed).
    const metrics = await request(a.url).get('/metrics').expect(200);
    expect(metricSample(metrics.text, 'action_queue_fenced_completions_total')).toBe(1);
    const after = await c.query(`SELECT status, attempts, result FROM actions WHERE id = $1`, [id]);
    expect(after.rows[0]).toMatchObject({ status: 'done', attempts: 2, result: { by: 'worker-D', attempt: 2 } });
    for (const app of apps.splice(0)) await app.close();
  });

  it('retry keeps order: a head failing twice stays the head; the next action starts after it is done', async () => {
    const { app } = await startTestApp(db.url, {
      WORKER_CONCURRENCY: '8',
      RETRY_BACKOFF_BASE_MS: '50',
      RETRY_BACKOFF_CAP_MS: '100',
      WORKER_POLL_INTERVAL_MS: '50',
    });
    apps.push(app);
    c ??= await connect(db.url);
    const t0 = Date.now();
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT 777, 'instance.update', p FROM unnest($1::jsonb[]) WITH ORDINALITY AS x(p, n) ORDER BY n RETURNING id::text`,
      [
        [{ failAttempts: 2, durationMs: 5 }, { durationMs: 5 }, { durationMs: 5 }, { failAttempts: 1, durationMs: 5 }, { durationMs: 5 }].map((p) =>
          JSON.stringify(p),
        ),
      ],
    );
    const ids = rows.map((r) => r.id).sort((x, y) => Number(x) - Number(y));
    await waitFor(async () => {
      const r = await c.query(`SELECT count(*)::int AS n FROM actions WHERE lock_id = 777 AND status = 'done'`);
      return r.rows[0].n === ids.length;
    }, 20_000);
    const elapsed = Date.now() - t0;
    const trace = await c.query<{ action_id: string; attempt: number; outcome: string; started_at: Date; finished_at: Date }>(
      `SELECT action_id::text, attempt, outcome, started_at, finished_at FROM action_attempts WHERE lock_id = 777 ORDER BY started_at, id`,
    );
    // Head: error, error, done; then each later action in id order; the fourth retries once before the fifth starts.
    expect(trace.rows.map((t) => `${t.action_id}#${t.attempt}:${t.outcome}`)).toEqual([
      `${ids[0]}#1:error`,
      `${ids[0]}#2:error`,
      `${ids[0]}#3:done`,
      `${ids[1]}#1:done`,
      `${ids[2]}#1:done`,
      `${ids[3]}#1:error`,
      `${ids[3]}#2:done`,
      `${ids[4]}#1:done`,
    ]);
    for (let i = 1; i < trace.rows.length; i++) {
      expect(trace.rows[i].started_at.getTime()).toBeGreaterThanOrEqual(trace.rows[i - 1].finished_at.getTime());
    }
    const report = await checkTrace(c, { expectDone: 'none' });
    expect(report.orderViolations).toEqual([]);
    expect(report.overlaps).toEqual([]);
    // The fast backoff setting applies (default base 1 s would take seconds).
    expect(elapsed).toBeLessThan(5_000);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
  });

  describe('reaper against completion at the moment the lease expires', () => {
    let app: INestApplication;
    let reaper: ReaperService;
    let finisher: AttemptFinisher;

    beforeAll(async () => {
      // Worker off: nothing claims or reaps on its own; the test drives both.
      ({ app } = await startTestApp(db.url, { WORKER_ENABLED: 'false', WORKER_ID: 'w-race' }));
      apps.push(app);
      reaper = app.get(ReaperService);
      finisher = app.get(AttemptFinisher);
      // The finisher takes no new work for these attempts.
      app.get(WorkerSlots).pause('stopping');
      c ??= await connect(db.url);
    });

    /** Leases up to `n` claimable actions to w-race for `leaseMs`, as the worker's claim does. */
    const claim = async (n: number, leaseMs: number) =>
      (await c.query<LeasedActionRow>({ ...CLAIM_ACTIONS_SQL, values: ['w-race', ['instance.create'], [null], n, leaseMs, false] })).rows;
    const finish = async (row: LeasedActionRow) => (await finisher.finish(done(row.id, row.attempts), true, () => monotonicNow() + 10_000)).recorded;

    const enqueue = async (n: number, lockBase: number) => {
      await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT $1::bigint + g, 'instance.create', '{}' FROM generate_series(1, $2::int) g`, [
        lockBase,
        n,
      ]);
    };
    const done = (id: string, attempt: number) => ({
      actionId: id,
      attempt,
      end: { kind: 'done' as const, outcome: 'done' as const, resultJson: '{"ok":true}' },
    });

    it('a completion holding the row while the reaper runs ends done, never reset', async () => {
      await enqueue(1, 10_000);
      const [row] = await claim(10, 150);
      await sleep(250); // the lease has expired by the database clock
      const tx = await connect(db.url);
      try {
        await tx.query('BEGIN');
        await tx.query(`SELECT 1 FROM actions WHERE id = $1 FOR UPDATE`, [row.id]); // the completion's row lock
        const finishing = finish(row);
        expect(await reaper.reap()).toBe(0); // skips the locked row
        await tx.query('COMMIT');
        expect(await finishing).toBe(true);
      } finally {
        await tx.end();
      }
      expect(await reaper.reap()).toBe(0);
      const r = await c.query(`SELECT status, attempts FROM actions WHERE id = $1`, [row.id]);
      expect(r.rows[0]).toEqual({ status: 'done', attempts: 1 });
      const t = await c.query(`SELECT outcome FROM action_attempts WHERE action_id = $1`, [row.id]);
      expect(t.rows).toEqual([{ outcome: 'done' }]);
    });

    it('a reaper that got the row first wins: the late completion is fenced, the action runs again', async () => {
      await enqueue(1, 20_000);
      const [row] = await claim(10, 150);
      await sleep(250);
      const tx = await connect(db.url);
      let finishing: Promise<boolean>;
      try {
        await tx.query('BEGIN');
        // The reaper's own statement, its transaction held open.
        const reaped = await tx.query(
          `UPDATE actions SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND status = 'running' AND lease_expires_at < now() RETURNING id`,
          [row.id],
        );
        expect(reaped.rowCount).toBe(1);
        finishing = finish(row);
        await sleep(100);
        await tx.query('COMMIT');
      } finally {
        await tx.end();
      }
      expect(await finishing!).toBe(false);
      const r = await c.query(`SELECT status, attempts, result FROM actions WHERE id = $1`, [row.id]);
      expect(r.rows[0]).toEqual({ status: 'pending', attempts: 1, result: null });
    });

    it('reaper and completions racing at lease expiry: each action is either done or reset, never both', async () => {
      const n = 300;
      await enqueue(n, 30_000);
      const rows = await claim(n, 500);
      expect(rows).toHaveLength(n);
      const leaseEnd = Date.now() + 500;
      // Completions spread over [expiry - 200 ms, expiry + 200 ms]; reapers fire every 10 ms around it.
      const finishes = rows.map(async (r) => {
        await sleep(Math.max(0, leaseEnd - 200 - Date.now() + Math.random() * 400));
        return { id: r.id, recorded: await finish(r) };
      });
      const reaps: Promise<number>[] = [];
      while (Date.now() < leaseEnd + 250) {
        reaps.push(reaper.reap());
        await sleep(10);
      }
      const results = await Promise.all(finishes);
      await Promise.all(reaps);
      await reaper.reap();
      const state = await c.query<{ id: string; status: string; outcomes: string[] }>(
        `SELECT a.id::text, a.status, array(SELECT outcome FROM action_attempts t WHERE t.action_id = a.id ORDER BY t.id) AS outcomes
         FROM actions a WHERE a.id = ANY($1::bigint[])`,
        [rows.map((r) => r.id)],
      );
      const byId = new Map(state.rows.map((s) => [s.id, s]));
      let doneCount = 0;
      let resetCount = 0;
      for (const { id, recorded } of results) {
        const s = byId.get(id)!;
        if (recorded) {
          doneCount++;
          expect({ id, status: s.status, outcomes: s.outcomes }).toEqual({ id, status: 'done', outcomes: ['done'] });
        } else {
          resetCount++;
          expect({ id, status: s.status, outcomes: s.outcomes }).toEqual({ id, status: 'pending', outcomes: ['lease_expired'] });
        }
      }
      console.log(`reaper race: ${n} completions at lease expiry: ${doneCount} recorded done, ${resetCount} fenced after the reaper reset them`);
      expect(doneCount + resetCount).toBe(n);
      expect(doneCount).toBeGreaterThan(0);
      expect(resetCount).toBeGreaterThan(0);
    });
  });
});
