import { Client } from 'pg';
import { newExecutionLogPath, readExecutions, startFixtureService, supervise, Supervisor, waitFor, withTestDatabase } from '../support';

/**
 * The bound on a poison (docs/guarantees.md, "Recovery as fast as the first
 * run; poison detection on evidence"): an action that kills its instance
 * every time it runs costs at most its budget + 1 executions, and as many
 * instance deaths, however each loss was recorded. Here a handler allocates
 * until its instance runs out of memory (heap capped at 96 MB; maxAttempts
 * 2), alone, on 3 instances under a process manager that restarts each.
 *
 * Each run ends its instance in one of several ways: V8 aborts (SIGABRT,
 * out of memory), the event-loop watchdog releases the instance's attempts
 * and kills it (SIGKILL), or first the LeaseKeeper, whose heartbeats the
 * collector's stalls kept from renewing, fences the attempt. That last one
 * was released uncharged and not counted as a loss, so the count of losses
 * in a row started again (seen: 5 executions and 5 deaths on a budget of 2).
 * Now a renewal that failed while the instance's own event loop stalled is a
 * loss (the attempt is left to expire), and the poison is a suspect at its
 * second loss (lost alone: singled out) and charged at its third.
 *
 * The watchdog is off here (WATCHDOG_ENABLED=false; PB_WATCHDOG=true turns
 * it on): it wins the race to a stalled instance most of the time, which hid
 * the LeaseKeeper's path on a quiet machine; without it every run takes that
 * path or dies of its heap first. Seen failing without the fix: 4 executions
 * and not failed after 40 s, its trace alternating "LeaseExpiringError ...
 * the instance's event loop stalled for 1515 ms" releases with losses.
 *
 * A run may take long: an instance can spend half a minute in the collector's
 * last attempts near its heap limit while its heartbeats still get through
 * (seen with the watchdog on: a suspect's attempt that ended 30 s after it
 * started). That is time, not executions: each run waits up to 60 s.
 *
 * POISON_BOUND_RUNS repeats the run (default 1: about 40 s on a loaded machine); the figure
 * depends on the machine's load, so repeat it (10) when changing the rule.
 */
const RUNS = Number(process.env.POISON_BOUND_RUNS ?? 1);
const BUDGET = 2;

describe('poison bound', () => {
  const db = withTestDatabase('poison_bound');
  let c: Client;
  let supervisor: Supervisor | null = null;
  const execLog = newExecutionLogPath('poison-bound');

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
  });

  it(
    `fails an out-of-memory poison (budget ${BUDGET}) after at most budget + 1 executions and instance deaths, ${RUNS} run(s)`,
    async () => {
      const env = {
        LOG_LEVEL: 'warn',
        WATCHDOG_ENABLED: process.env.PB_WATCHDOG ?? 'false',
        LEASE_MS: '2000',
        REAPER_INTERVAL_MS: '200',
        WORKER_POLL_INTERVAL_MS: '200',
        EXEC_LOG: execLog,
      };
      const startedAt = Date.now();
      supervisor = await supervise(3, () => startFixtureService(db.url, env, ['--max-old-space-size=96']));
      const startMs = Date.now() - startedAt;
      const figures: { executions: number; deaths: number; attempts: number; ms: number; trace: string[] }[] = [];
      for (let run = 0; run < RUNS; run++) {
        const deathsBefore = supervisor.deaths.size;
        const runStartedAt = Date.now();
        const {
          rows: [{ id }],
        } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES ($1, 'test.oom') RETURNING id::text`, [run + 1]);
        const traceOf = async () =>
          (
            await c.query<{ outcome: string; error: string }>(`SELECT outcome, error FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [id])
          ).rows.map((t) => `${t.outcome}: ${t.error}`);
        await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'failed', 60_000).catch(
          async (error) => {
            const { rows } = await c.query(`SELECT status, attempts, charged_attempts, quarantined, uncharged_losses FROM actions WHERE id = $1`, [id]);
            console.log(
              `poison bound, run ${run} not failed: ${JSON.stringify(rows[0])}; trace ${JSON.stringify(await traceOf())}; executions ${JSON.stringify(readExecutions(execLog).filter((e) => e.id === id))}; exits ${JSON.stringify([...supervisor!.exits.values()])}`,
            );
            throw error;
          },
        );
        const executed = readExecutions(execLog).filter((e) => e.id === id);
        // Each execution took its instance down; wait until the supervisor saw them all go.
        await waitFor(async () => supervisor!.deaths.size - deathsBefore >= new Set(executed.map((e) => e.pid)).size, 20_000);
        const { rows } = await c.query(`SELECT attempts, charged_attempts FROM actions WHERE id = $1`, [id]);
        expect(rows[0].charged_attempts).toBe(BUDGET);
        figures.push({
          executions: executed.length,
          deaths: supervisor.deaths.size - deathsBefore,
          attempts: rows[0].attempts,
          ms: Date.now() - runStartedAt,
          trace: await traceOf(),
        });
      }
      console.log(`poison bound (instances up in ${startMs} ms): ${JSON.stringify(figures, null, 1)}; exits ${JSON.stringify([...supervisor.exits.values()])}`);
      for (const f of figures) {
        expect(f.executions).toBeGreaterThanOrEqual(1);
        expect(f.executions).toBeLessThanOrEqual(BUDGET + 1);
        expect(f.deaths).toBeLessThanOrEqual(BUDGET + 1);
      }
    },
    55_000 + RUNS * 60_000,
  );
});
