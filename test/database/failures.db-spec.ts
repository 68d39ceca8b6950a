import { INestApplication, Module } from '@nestjs/common';
import { Client } from 'pg';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../../src/handlers';
import { AttemptFinisher } from '../../src/queue/attempt-finisher.service';
import { ClaimerService } from '../../src/queue/claimer.service';
import { ReaperService } from '../../src/queue/reaper.service';
import { LeaseLostError, WorkerService } from '../../src/queue/worker.service';
import { checkTrace } from '../../src/testing/trace-checker';
import { connect, sleep, startTestApp, waitFor, withTestDatabase } from '../support';

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

  it('fencing: a stalled holder loses its lease, is told through its AbortSignal, and its late completion is rejected', async () => {
    const env = { DEMO_HANDLERS: 'false', WORKER_CONCURRENCY: '1', LEASE_MS: '600', REAPER_INTERVAL_MS: '100', WORKER_POLL_INTERVAL_MS: '100' };
    const a = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-A' }, [StallModule]);
    apps.push(a.app);
    c = await connect(db.url);
    stall.gate = gate();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES (501, 'test.stall') RETURNING id::text`);
    await waitFor(async () => stall.runs.some((r) => r.attempt === 1 && r.workerId === 'worker-A'));

    // Worker A stalls: its heartbeats stop (its only slot stays busy, so it claims nothing else).
    const workerA = a.app.get(WorkerService) as unknown as { heartbeat: () => Promise<void> };
    workerA.heartbeat = async () => undefined;
    const finisherA = a.app.get(AttemptFinisher);
    const finishResults: boolean[] = [];
    const originalFinish = finisherA.finish.bind(finisherA);
    finisherA.finish = async (...args: Parameters<AttemptFinisher['finish']>) => {
      const recorded = await originalFinish(...args);
      finishResults.push(recorded);
      return recorded;
    };

    // And see what really reaches the database: the fenced statement must be the one to say no.
    const writes: { items: { actionId: string; attempt: number }[]; recorded: string[] }[] = [];
    type WriteResult = { recorded: Set<string>; deferred: Set<string> };
    const writable = finisherA as unknown as { write: (w: string, items: { actionId: string; attempt: number }[]) => Promise<WriteResult> };
    const originalWrite = writable.write.bind(finisherA);
    writable.write = async (w, items) => {
      const result = await originalWrite(w, items);
      writes.push({ items: items.map((i) => ({ actionId: i.actionId, attempt: i.attempt })), recorded: [...result.recorded] });
      return result;
    };

    const b = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-B' }, [StallModule]);
    apps.push(b.app);
    // The lease expires, a reaper returns the action, B runs attempt 2 and finishes it.
    const row = await waitFor(async () => {
      const r = await c.query(`SELECT status, attempts, result FROM actions WHERE id = $1`, [id]);
      return r.rows[0].status === 'done' ? r.rows[0] : null;
    }, 15_000);
    expect(row).toMatchObject({ status: 'done', attempts: 2, result: { by: 'worker-B', attempt: 2 } });

    // A's heartbeat comes back: it finds the lease gone and aborts the handler with the lease-lost reason.
    delete (workerA as { heartbeat?: unknown }).heartbeat;
    await waitFor(async () => stall.abortReasons.length > 0, 5_000);
    expect(stall.abortReasons[0]).toBeInstanceOf(LeaseLostError);
    expect(String((stall.abortReasons[0] as Error).message)).toContain(`lease of action ${id} attempt 1 was lost`);

    // The stale handler returns anyway; its completion is fenced.
    stall.gate.open();
    await waitFor(async () => finishResults.length > 0, 5_000);
    expect(finishResults).toEqual([false]);
    expect(writes).toEqual([{ items: [{ actionId: id, attempt: 1 }], recorded: [] }]);
    await sleep(200);
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
    let claimer: ClaimerService;
    let finisher: AttemptFinisher;

    beforeAll(async () => {
      // Worker off: nothing claims or reaps on its own; the test drives both.
      ({ app } = await startTestApp(db.url, { WORKER_ENABLED: 'false' }));
      apps.push(app);
      reaper = app.get(ReaperService);
      claimer = app.get(ClaimerService);
      finisher = app.get(AttemptFinisher);
      c ??= await connect(db.url);
    });

    const enqueue = async (n: number, lockBase: number) => {
      await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT $1::bigint + g, 'instance.create', '{}' FROM generate_series(1, $2::int) g`, [
        lockBase,
        n,
      ]);
    };
    const done = (id: string, attempt: number) => ({ actionId: id, attempt, end: { kind: 'done' as const, resultJson: '{"ok":true}' } });

    it('a completion holding the row while the reaper runs ends done, never reset', async () => {
      await enqueue(1, 10_000);
      const [row] = await claimer.claim('w-race', ['instance.create'], 10, 150);
      await sleep(250); // the lease has expired by the database clock
      const tx = await connect(db.url);
      try {
        await tx.query('BEGIN');
        await tx.query(`SELECT 1 FROM actions WHERE id = $1 FOR UPDATE`, [row.id]); // the completion's row lock
        const finishing = finisher.finish('w-race', done(row.id, row.attempts), Date.now() + 10_000);
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
      const [row] = await claimer.claim('w-race', ['instance.create'], 10, 150);
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
        finishing = finisher.finish('w-race', done(row.id, row.attempts), Date.now() + 10_000);
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
      const rows = await claimer.claim('w-storm', ['instance.create'], n, 500);
      expect(rows).toHaveLength(n);
      const leaseEnd = Date.now() + 500;
      // Completions spread over [expiry - 200 ms, expiry + 200 ms]; reapers fire every 10 ms around it.
      const finishes = rows.map(async (r) => {
        await sleep(Math.max(0, leaseEnd - 200 - Date.now() + Math.random() * 400));
        return { id: r.id, recorded: await finisher.finish('w-storm', done(r.id, r.attempts), Date.now() + 10_000) };
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
