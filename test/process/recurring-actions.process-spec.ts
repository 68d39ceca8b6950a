import { Client } from 'pg';
import { ServiceProcess, sleep, startServiceProcess, waitFor, withTestDatabase } from '../support';

const SECOND = 1_000;

/**
 * Recurring actions across processes (src/schedules/, migration 036): a
 * per-second schedule on three instances enqueues exactly one action per
 * tick, none missing, none doubled; after all three are killed and started
 * again, the ticks missed by more than the misfire grace are skipped (the
 * `skip` policy), and only those.
 *
 * Seen to fail against a deliberately broken build: the schedule read
 * without FOR UPDATE SKIP LOCKED and the tick claim's answer ignored (every
 * instance then enqueued the ticks it planned: 62 actions for 24 ticks).
 */
describe('a recurring action on three instances', () => {
  const INSTANCES = 3;
  const GRACE_MS = 2_000;
  const DOWNTIME_MS = 6_000;
  const db = withTestDatabase('recurring');
  let services: ServiceProcess[] = [];
  let pg: Client;

  const start = () =>
    Promise.all(
      Array.from({ length: INSTANCES }, () =>
        startServiceProcess(db.url, { WORKER_CONCURRENCY: '4', WORKER_POLL_INTERVAL_MS: '200', LOG_LEVEL: 'warn' }, 90_000),
      ),
    );
  const dbNow = async () => (await pg.query<{ now: Date }>(`SELECT now() AS now`)).rows[0].now.getTime();
  const ticksSeen = async () => (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_schedule_ticks`)).rows[0].n;

  beforeAll(async () => {
    pg = await db.connect();
  });

  it('enqueues one action per second, exactly once, and skips only what the downtime missed beyond the grace', async () => {
    try {
      await runScenario();
    } finally {
      await Promise.all(services.map((s) => s.kill()));
    }
  }, 300_000);

  async function runScenario(): Promise<void> {
    services = await start();
    const created = await fetch(`${services[0].url}/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'every-second',
        cron: '* * * * * *',
        timeZone: 'UTC',
        type: 'instance.create',
        payload: { durationMs: 0 },
        lockId: '31337',
        catchUp: 'skip',
        misfireGraceMs: GRACE_MS,
      }),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { nextRunAt: string }).nextRunAt).toMatch(/\.000Z$/);

    // Phase 1: about 10 ticks with all three running.
    await waitFor(async () => (await ticksSeen()) >= 10, 30_000);
    await Promise.all(services.map((s) => s.kill()));
    services = [];
    const stoppedAt = await dbNow();
    await sleep(DOWNTIME_MS); // the downtime itself, not a wait for a condition
    services = await start();
    const restartedAt = await dbNow();
    const before = await ticksSeen();
    // Phase 2: the catch-up (the ticks within the grace, raced by three fresh
    // instances) and a few on time after it, enough to bound the gap on both
    // sides; steady-state exactly-once was shown by phase 1's ten.
    await waitFor(async () => (await ticksSeen()) >= before + 5, 30_000);

    const { rows: ticks } = await pg.query<{ tick_at: Date; action_id: string | null; error: string | null }>(
      `SELECT tick_at, action_id::text AS action_id, error FROM action_schedule_ticks WHERE schedule_name = 'every-second' ORDER BY tick_at`,
    );
    // One action per tick, none doubled.
    expect(ticks.filter((t) => t.action_id === null)).toEqual([]);
    const { rows: actions } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id = 31337`);
    expect(actions[0].n).toBe(ticks.length);
    expect(new Set(ticks.map((t) => t.action_id)).size).toBe(ticks.length);
    // None missing outside the downtime; the downtime's ticks beyond the grace are skipped.
    const first = ticks[0].tick_at.getTime();
    const last = ticks[ticks.length - 1].tick_at.getTime();
    const present = new Set(ticks.map((t) => t.tick_at.getTime()));
    const missing: number[] = [];
    for (let t = first; t <= last; t += SECOND) if (!present.has(t)) missing.push(t);
    expect(missing.length).toBeGreaterThanOrEqual((DOWNTIME_MS - GRACE_MS) / SECOND - 2);
    for (const t of missing) {
      expect(t).toBeGreaterThan(stoppedAt - SECOND);
      expect(t).toBeLessThan(restartedAt);
    }
    const { rows: schedule } = await pg.query<{ skipped_ticks: string }>(`SELECT skipped_ticks::text FROM action_schedules WHERE name = 'every-second'`);
    expect(Number(schedule[0].skipped_ticks)).toBe(missing.length);
    // And they ran, in order, in their group.
    await waitFor(async () => (await pg.query(`SELECT 1 FROM actions WHERE lock_id = 31337 AND status <> 'done'`)).rowCount === 0, 30_000);
  }
});
