import { Client } from 'pg';
import {
  backendPid,
  BlackholeProxy,
  checkTrace,
  connect,
  executionOverlaps,
  FIXTURE_SERVICE,
  formatTraceReport,
  newExecutionLogPath,
  readExecutions,
  ServiceProcess,
  sleep,
  startBlackholeProxy,
  startServiceProcess,
  terminateBackends,
  waitFor,
  withTestDatabase,
} from '../support';

/**
 * Chaos: several worker processes while a driver SIGKILLs and restarts them,
 * once cuts every database connection of the service, and once blackholes one
 * worker's database traffic for a few seconds (it must fence itself); poison
 * actions that block their instance's event loop (its watchdog stops it) are
 * mixed into the workload. The trace must show every innocent action done
 * exactly once and none failed, no overlapping leases in a group, no order
 * violation, nothing lost. CHAOS_LONG=1 runs a bigger variant; CHAOS_ACTIONS=n
 * a smaller one (a loaded machine).
 *
 * Kills provably interrupt running work: a share of the actions run long
 * (LONG_MS), and the driver picks as victim the process (known by its
 * WORKER_ID) that holds the lease of a long action with at least
 * KILL_MARGIN_MS of its run still ahead. If the SIGKILL follows the start of
 * that query sooner than the run time left, the handler was still running when
 * the process died, so the trace must record exactly that attempt as
 * `lease_expired`.
 *
 * The handlers (test.sleep) write an execution log, and the overlap check runs
 * on it too: in the trace, a handler still running after its lease expired
 * shows no overlap (the retry's row starts after the expired one ends); in the
 * execution log it does. The blackholed worker is cut off while it runs an
 * action longer than a lease (CUT_OFF_LONG). Seen to fail that way with
 * self-fencing disabled (fenceExpiring returning at once,
 * lease-keeper.service.ts): the cut-off handler ran on beside its own retry.
 *
 * Then the whole fleet is SIGKILLed at once with work running and started
 * again: the time until that work drains is printed (recovery), and the test
 * only bounds it generously (FLEET.limitMs).
 */
const LONG = process.env.CHAOS_LONG === '1';
const CFG = LONG
  ? { workers: 4, actions: 30_000, groups: 500, killEveryMs: [2_000, 3_000], enqueueEveryMs: 15_000, limitMs: 400_000 }
  : { workers: 4, actions: Number(process.env.CHAOS_ACTIONS ?? 5_000), groups: 200, killEveryMs: [2_000, 3_000], enqueueEveryMs: 2_500, limitMs: 90_000 };
/** Share of actions that run long, and their duration range (ms); the others take 0-20 ms. */
const LONG_SHARE = 0.05;
const LONG_MS = [300, 800];
/** A targeted victim's action must have at least this much run time left (ms) when the driver picks it. */
const KILL_MARGIN_MS = 200;
/** How long the driver waits for a running long action before it kills a random process instead (ms). */
const TARGET_WAIT_MS = 2_000;
/**
 * The whole-fleet SIGKILL after the chaos: `groups` groups of `perGroup` actions of
 * `ms` each; the kill once at least `minRunning` run; `limitMs` to drain after the restart.
 */
const FLEET = { groups: 24, perGroup: 2, ms: 1_000, minRunning: 16, limitMs: 120_000 };

const WORKER_ENV = {
  LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'error',
  LEASE_MS: '2000',
  REAPER_INTERVAL_MS: '300',
  WORKER_POLL_INTERVAL_MS: '100',
  WORKER_CONCURRENCY: '16',
  DB_POOL_SIZE: '6',
  RETRY_BACKOFF_BASE_MS: '20',
  RETRY_BACKOFF_CAP_MS: '200',
  SHUTDOWN_TIMEOUT_MS: '3000',
};

/** The fixture handler that sleeps `ms` (honouring its signal), fails its first `failAttempts` attempts and writes the execution log. */
const WORK_TYPE = 'test.sleep';
/** WORK_TYPE's handler under a type only worker 0 registers (misbehaving-handlers.ts, PinnedSleepHandler). */
const PINNED_TYPE = 'test.sleep-pinned';
/** Poison actions: each blocks its instance's event loop for 5 s (capped at 2 attempts, policy skip). */
const POISON_COUNT = Number(process.env.CHAOS_POISON ?? 4);
const POISON_TYPE = 'test.busy';
/** How long the blackholed worker stays cut off (ms): over twice LEASE_MS, so that its lost actions run elsewhere while it is still cut off. */
const BLACKHOLE_MS = 5_000;
/** Actions longer than a lease enqueued just before the blackhole, so that the cut-off worker runs one. */
const CUT_OFF_LONG = { count: 8, ms: 20_000 };

describe('chaos: killed workers, cut connections', () => {
  // Empty: the first worker process migrates it at start-up.
  const db = withTestDatabase('chaos', { migrated: false });
  let c: Client;
  const procs: (ServiceProcess | null)[] = [];
  /** WORKER_ID of procs[i] (each incarnation its own id, so a lease maps to one process). */
  const workerIds: string[] = [];
  let incarnation = 0;
  /** Worker 0 reaches the database through this proxy, which the driver blackholes once. */
  let proxy: BlackholeProxy;
  /** Processes the driver killed (the others that exit are restarted, as a process manager would). */
  const killedByDriver = new Set<ServiceProcess>();
  /** Processes that exited on their own (a poison action's watchdog stopped them). */
  let selfExits = 0;
  /** When each worker process was seen to exit (pid → Date.now()): the end of its executions that logged none. */
  const deaths = new Map<number, number>();
  const execLog = newExecutionLogPath('chaos');
  /** Every start begun, so that afterAll also stops a process still starting (not yet in procs). */
  const starts: Promise<ServiceProcess>[] = [];
  let stopping = false;
  /** Starts slot `slot` again (and again, if a poison action stops it while it starts). */
  const restartSlot = (slot: number): void => {
    if (stopping) return;
    const again = startWorker(slot);
    again.started.then(
      (q) => {
        if (stopping) return void q.kill();
        procs[slot] = q;
        workerIds[slot] = again.id;
      },
      () => restartSlot(slot),
    );
  };
  const startWorker = (slot: number): { id: string; started: Promise<ServiceProcess> } => {
    const id = `chaos-w${slot}-${++incarnation}`;
    const started = (async () => {
      // Not startFixtureService: a process that dies before it is healthy (a poison action
      // stops it) may already have run handlers, so its death is recorded from its spawn on.
      const p = await startServiceProcess({
        entry: FIXTURE_SERVICE,
        env: {
          DEMO_HANDLERS: 'true',
          ...WORKER_ENV,
          WORKER_ID: id,
          EXEC_LOG: execLog,
          DATABASE_URL: slot === 0 ? proxy.url : db.url,
          // Worker 0 alone runs PINNED_TYPE: the blackhole below needs it running a long action.
          FIXTURE_PINNED_SLEEP: slot === 0 ? '1' : '0',
        },
        healthyWithinMs: 0,
      });
      void p.exited.then(() => deaths.set(p.child.pid!, Date.now()));
      try {
        await p.healthy(30_000);
      } catch (error) {
        await p.kill();
        throw error;
      }
      return p;
    })();
    starts.push(started);
    started.then(
      (p) =>
        void p.exited.then(() => {
          if (killedByDriver.has(p) || stopping || procs[slot] !== p) return;
          selfExits++;
          procs[slot] = null;
          restartSlot(slot);
        }),
      () => undefined, // the caller sees the failed start
    );
    return { id, started };
  };

  beforeAll(async () => {
    proxy = await startBlackholeProxy(db.url);
  });
  afterAll(async () => {
    stopping = true;
    for (const p of procs) await p?.kill().catch(() => undefined);
    for (const started of await Promise.allSettled(starts)) if (started.status === 'fulfilled') await started.value.kill().catch(() => undefined);
    await proxy?.close();
    await c?.end().catch(() => undefined);
  });

  it(
    `${CFG.actions} actions in ${CFG.groups} groups survive SIGKILLs and a connection cut`,
    async () => {
      const t0 = Date.now();
      // The first process migrates; the others start next to it.
      procs.length = 0;
      for (let i = 0; i < CFG.workers; i++) {
        const w = startWorker(i);
        procs.push(await w.started);
        workerIds.push(w.id);
      }
      c = await connect(db.url);

      // A running long action of a live process (not the only one left) with
      // KILL_MARGIN_MS or more of its run ahead, or null.
      const findTarget = async (): Promise<{ slot: number; actionId: string; attempt: number; workerId: string; leftMs: number } | null> => {
        const alive = procs.map((p, i) => (p ? workerIds[i] : null)).filter((id): id is string => id !== null);
        if (alive.length <= 1) return null;
        // left_ms: the least run time still ahead (the handler starts after attempt_started_at).
        const { rows } = await c.query<{ id: string; attempts: number; lease_owner: string; left_ms: number }>(
          `SELECT id, attempts, lease_owner, left_ms FROM (
           SELECT id::text, attempts, lease_owner,
                  (payload->>'ms')::float8 - extract(epoch FROM clock_timestamp() - attempt_started_at) * 1000 AS left_ms
           FROM actions
           WHERE status = 'running' AND lease_owner = ANY($1::text[]) AND attempts < max_attempts - 1) r
         WHERE left_ms >= $2::int
         ORDER BY random() LIMIT 1`,
          [alive, KILL_MARGIN_MS],
        );
        if (rows.length === 0) return null;
        const slot = workerIds.indexOf(rows[0].lease_owner);
        return slot >= 0 && procs[slot]
          ? { slot, actionId: rows[0].id, attempt: rows[0].attempts, workerId: rows[0].lease_owner, leftMs: rows[0].left_ms }
          : null;
      };

      // The driver: every 2-3 s SIGKILL a worker and restart it (in the
      // background, so the kills keep their pace); cut all connections once.
      // The victim is the holder of a running long action (waiting up to
      // TARGET_WAIT_MS for one), else a random process.
      let kills = 0;
      let cut = 0;
      let blackholed = 0;
      /** Whether worker 0 held a long action when it was cut off. */
      let longWhenCut = false;
      let cutOffLongs = 0;
      let stop = false;
      /** Attempts a kill provably interrupted mid-run. */
      const interrupted: { actionId: string; attempt: number; workerId: string }[] = [];
      const driver = (async () => {
        let round = 0;
        while (!stop) {
          await sleep(CFG.killEveryMs[0] + Math.random() * (CFG.killEveryMs[1] - CFG.killEveryMs[0]));
          if (stop) break;
          round++;
          // The cut, once it found connections to end (every worker may be restarting at that moment).
          if (round >= 2 && cut === 0) {
            cut = await terminateBackends(db.name, `pid <> ${await backendPid(c)}`);
            continue;
          }
          if (blackholed === 0 && process.env.CHAOS_NO_BLACKHOLE !== '1') {
            // Cut worker 0 off while it runs an action longer than a lease: that handler must
            // stop before its lease expires (self-fencing), or the execution log shows it
            // running beside its own retry.
            // Long on their first attempt only (`laterMs`), so a retry after the cut is short.
            for (let round = 0; round < 4 && !longWhenCut; round++) {
              // As PINNED_TYPE, which only worker 0 claims (worker 0 reaches the database through
              // the proxy, so it lost most races for a plain type); once it runs them they become
              // WORK_TYPE, so that their retries after the cut may run on any worker.
              await c.query(
                `INSERT INTO actions (lock_id, type, payload, max_attempts) SELECT 3000000 + $3::int * $4::int + g, $1, $2, 25 FROM generate_series(1, $3::int) g`,
                [PINNED_TYPE, JSON.stringify({ ms: CUT_OFF_LONG.ms, laterMs: 50 }), CUT_OFF_LONG.count, round],
              );
              cutOffLongs += CUT_OFF_LONG.count;
              longWhenCut = await waitFor(
                async () =>
                  procs[0] !== null &&
                  (await c.query(`SELECT 1 FROM actions WHERE lock_id > 3000000 AND status = 'running' AND lease_owner = $1`, [workerIds[0]])).rows.length > 0,
                10_000,
              ).catch(() => false);
              await c.query(`UPDATE actions SET type = $1 WHERE type = $2`, [WORK_TYPE, PINNED_TYPE]);
            }
            proxy.blackhole();
            await sleep(BLACKHOLE_MS);
            proxy.restore();
            blackholed++;
            continue;
          }
          let target: Awaited<ReturnType<typeof findTarget>> = null;
          let asked = 0;
          for (const waitUntil = Date.now() + TARGET_WAIT_MS; !stop; await sleep(50)) {
            asked = Date.now();
            target = await findTarget();
            if (target || Date.now() >= waitUntil) break;
          }
          if (stop) break;
          let i: number;
          if (target) {
            i = target.slot;
          } else {
            const alive = procs.map((p, j) => (p ? j : -1)).filter((j) => j >= 0);
            if (alive.length <= 1) continue;
            i = alive[Math.floor(Math.random() * alive.length)];
          }
          const victim = procs[i]!;
          killedByDriver.add(victim);
          procs[i] = null;
          const killed = victim.kill(); // sends SIGKILL synchronously
          // The action had leftMs to run when the query ran (after `asked`), so
          // if less time has passed since `asked`, it was still running now.
          if (target && Date.now() - asked < target.leftMs) interrupted.push({ actionId: target.actionId, attempt: target.attempt, workerId: target.workerId });
          await killed;
          kills++;
          restartSlot(i);
        }
      })();

      // Poison: each in a group of its own (policy skip, so its failure blocks nothing).
      const { rows: poisonRows } = await c.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, payload, on_failure)
         SELECT 1000000 + g, $1, '{"ms": 5000}', 'skip' FROM generate_series(1, $2::int) g RETURNING id::text`,
        [POISON_TYPE, POISON_COUNT],
      );
      const poison = poisonRows.map((r) => r.id);

      // Enqueue by plain SQL in chunks spread over time, groups interleaved, while workers run and die.
      let failing = 0;
      let long = 0;
      const chunks = 10;
      const chunk = Math.ceil(CFG.actions / chunks);
      for (let from = 0; from < CFG.actions; from += chunk) {
        if (from > 0) await sleep(CFG.enqueueEveryMs);
        const items: { lockId: number; type: string; payload: string }[] = [];
        for (let i = from; i < Math.min(CFG.actions, from + chunk); i++) {
          const r = Math.random();
          const failAttempts = r < 0.7 ? 0 : r < 0.9 ? 1 : 2;
          if (failAttempts) failing++;
          const durationMs =
            Math.random() < LONG_SHARE ? LONG_MS[0] + Math.floor(Math.random() * (LONG_MS[1] - LONG_MS[0] + 1)) : Math.floor(Math.random() * 21);
          if (durationMs >= LONG_MS[0]) long++;
          items.push({
            lockId: 1 + Math.floor(Math.random() * CFG.groups),
            type: WORK_TYPE,
            payload: JSON.stringify({ ms: durationMs, failAttempts }),
          });
        }
        // A multi-group statement locks its groups row by row: in lock id order
        // (stable, so each group keeps its order), as the API's batch does, it
        // cannot deadlock with the workers' batched completions.
        items.sort((a, b) => a.lockId - b.lockId);
        await c.query(
          // max_attempts 25: a kill costs every action its worker was running
          // one attempt (crash recovery), and a worker may be killed many times in a run; this
          // test checks loss, order and exclusivity, not attempt exhaustion (a
          // spent action would block its group by design, see test/database/failures.db-spec.ts).
          `INSERT INTO actions (lock_id, type, payload, max_attempts)
         SELECT l, t, p, 25 FROM unnest($1::bigint[], $2::text[], $3::jsonb[]) AS x(l, t, p)`,
          [items.map((x) => String(x.lockId)), items.map((x) => x.type), items.map((x) => x.payload)],
        );
      }

      let remaining = -1;
      try {
        const deadline = t0 + CFG.limitMs;
        while (Date.now() < deadline) {
          const { rows } = await c.query<{ n: string }>(
            `SELECT count(*) AS n FROM actions WHERE status IN ('pending', 'running') OR (status <> 'done' AND type <> $1)`,
            [POISON_TYPE],
          );
          remaining = Number(rows[0].n);
          if (remaining === 0) break;
          await sleep(250);
        }
      } finally {
        stop = true;
        stopping = true;
        await driver;
      }

      // The whole fleet SIGKILLed at once with work running, and started again at once.
      let fleet: { interrupted: number; recoveryMs: number; restartMs: number } | null = null;
      if (remaining === 0) {
        // Every slot up first (a slot the driver was restarting when it stopped is empty).
        await Promise.all(
          procs.map(async (p, slot) => {
            if (p) return;
            const w = startWorker(slot);
            procs[slot] = await w.started;
            workerIds[slot] = w.id;
          }),
        );
        const { rows: fleetRows } = await c.query<{ id: string }>(
          `INSERT INTO actions (lock_id, type, payload, max_attempts)
           SELECT 2000000 + g, $1, $2, 25 FROM generate_series(1, $3::int) g, generate_series(1, $4::int) n ORDER BY g, n RETURNING id::text`,
          [WORK_TYPE, JSON.stringify({ ms: FLEET.ms }), FLEET.groups, FLEET.perGroup],
        );
        const fleetIds = fleetRows.map((r) => r.id);
        const runningNow = async () =>
          (await c.query<{ id: string }>(`SELECT id::text FROM actions WHERE id = ANY($1) AND status = 'running'`, [fleetIds])).rows.map((r) => r.id);
        const fleetRunning = await waitFor(async () => {
          const ids = await runningNow();
          return ids.length >= FLEET.minRunning ? ids : null;
        }, 30_000);
        const victims = procs.splice(0, procs.length, ...procs.map(() => null));
        for (const v of victims) if (v) killedByDriver.add(v);
        await Promise.all(victims.map((v) => v?.kill()));
        kills += victims.filter(Boolean).length;
        const restartAt = Date.now();
        await Promise.all(
          procs.map(async (_, slot) => {
            const w = startWorker(slot);
            procs[slot] = await w.started;
            workerIds[slot] = w.id;
          }),
        );
        const upAt = Date.now();
        await waitFor(
          async () => (await c.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status <> 'done'`, [fleetIds])).rows[0].n === 0,
          FLEET.limitMs,
          100,
        );
        fleet = { interrupted: fleetRunning.length, restartMs: upAt - restartAt, recoveryMs: Date.now() - restartAt };
        console.log(
          `chaos: whole-fleet SIGKILL of ${victims.filter(Boolean).length} processes with ${fleetRunning.length} of ${fleetIds.length} actions running ` +
            `(${FLEET.groups} groups x ${FLEET.perGroup}, ${FLEET.ms} ms each): restarted in ${fleet.restartMs} ms, ` +
            `drained ${(fleet.recoveryMs / 1000).toFixed(1)} s after the restart began (LEASE_MS ${WORKER_ENV.LEASE_MS})`,
        );
      }

      // Every outcome counts as a held lease for the overlap check (the default).
      const report = await checkTrace(c, { expectDone: (a) => a.type !== POISON_TYPE });
      const runtimeS = (Date.now() - t0) / 1000;
      const repeated = report.attemptsByOutcome.lease_expired ?? 0;
      // Each provably interrupted attempt, as the trace recorded it.
      const { rows: interruptedTrace } = await c.query<{ action_id: string; attempt: number; worker_id: string; outcome: string }>(
        `SELECT t.action_id::text, t.attempt, t.worker_id, t.outcome
       FROM action_attempts t JOIN unnest($1::bigint[], $2::int[]) AS k(action_id, attempt) USING (action_id, attempt)
       ORDER BY t.action_id, t.attempt`,
        [interrupted.map((k) => k.actionId), interrupted.map((k) => k.attempt)],
      );
      console.log(
        `chaos: ${report.actionCount} actions (${long} long, ${LONG_MS[0]}-${LONG_MS[1]} ms), ${CFG.groups} groups, ${CFG.workers} worker processes, ` +
          `${kills} SIGKILLs (${interrupted.length} provably interrupting a running action), ` +
          `1 connection cut (${cut} backends), ${blackholed} worker blackholed for ${BLACKHOLE_MS} ms, ` +
          `${POISON_COUNT} poison actions (${selfExits} instances stopped by their watchdog), ` +
          `${repeated} executions repeated because of kills (lease_expired), ` +
          `${failing} actions with simulated failures, attempts by outcome ${JSON.stringify(report.attemptsByOutcome)}, ${runtimeS.toFixed(1)} s`,
      );

      if (remaining !== 0) {
        const { rows: state } = await c.query(
          `SELECT status, quarantined, type = $1 AS poison, count(*)::int AS n FROM actions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [POISON_TYPE],
        );
        console.log(`chaos: ${remaining} left: ${JSON.stringify(state)}`);
      }
      // Safety before liveness. What really ran, by the handlers' own log: no two executions
      // of a group at once, including a handler still running after its lease expired (the
      // trace cannot show that).
      const executions = readExecutions(execLog, deaths);
      expect(executions.length).toBeGreaterThanOrEqual(CFG.actions);
      const realOverlaps = executionOverlaps(executions);
      expect(realOverlaps.slice(0, 5)).toEqual([]);
      expect(remaining).toBe(0);
      expect(fleet).not.toBeNull();
      expect(report.actionCount).toBe(CFG.actions + POISON_COUNT + FLEET.groups * FLEET.perGroup + cutOffLongs);
      expect(longWhenCut).toBe(blackholed === 1);
      // The poison failed after its own budget; no innocent action failed.
      const { rows: failed } = await c.query<{ id: string; type: string; charged_attempts: number }>(
        `SELECT id::text, type, charged_attempts FROM actions WHERE status = 'failed' ORDER BY id`,
      );
      expect(failed.map((f) => f.id)).toEqual(poison);
      expect(blackholed).toBe(process.env.CHAOS_NO_BLACKHOLE === '1' ? 0 : 1);
      expect(report.lost).toEqual([]);
      expect([...report.doneMoreThanOnce, ...report.doneWithoutTrace]).toEqual([]);
      expect(report.overlaps).toEqual([]);
      expect(report.orderViolations).toEqual([]);
      expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
      // The kill counts are calibrated for the full runs; a smaller CHAOS_ACTIONS run drains before many kills.
      const full = LONG || CFG.actions >= 5_000;
      expect(kills).toBeGreaterThanOrEqual(LONG ? 20 : full ? 5 : 1);
      expect(cut).toBeGreaterThan(0);
      // Every provably interrupted attempt ended as lease_expired of its killed
      // owner (one trace row each), so kills did repeat executions.
      expect(interrupted.length).toBeGreaterThanOrEqual(LONG ? 5 : full ? 3 : 0);
      expect(interruptedTrace.map((t) => `${t.action_id}#${t.attempt} ${t.worker_id} ${t.outcome}`)).toEqual(
        interrupted
          .map((k) => ({ ...k, id: BigInt(k.actionId) }))
          .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : x.attempt - y.attempt))
          .map((k) => `${k.actionId}#${k.attempt} ${k.workerId} lease_expired`),
      );
      expect(repeated).toBeGreaterThanOrEqual(interrupted.length);
      // Every repeated execution is visible: a done action ran once per trace row.
      const { rows } = await c.query<{ bad: string }>(
        `SELECT count(*) AS bad FROM actions a WHERE a.attempts <> (SELECT count(*) FROM action_attempts t WHERE t.action_id = a.id)`,
      );
      expect(Number(rows[0].bad)).toBe(0);

      // Surviving workers drain and exit 0 on SIGTERM.
      for (let i = 0; i < procs.length; i++) {
        const p = procs[i];
        procs[i] = null;
        if (p) expect(await p.stop()).toBe(0);
      }
    },
    CFG.limitMs + FLEET.limitMs + 120_000,
  );
});
