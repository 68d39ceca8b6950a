import { Client } from 'pg';
import { ServiceProcess, startFixtureService, waitFor, withTestDatabase } from '../support';

/** Repetitions of "a thread-isolated handler leaves a stray rejection; an innocent action of its type runs next". */
const REPETITIONS = 20;

/**
 * Thread isolation really isolates. A thread-isolated
 * handler that returns at once and leaves a promise rejecting 1.5 s later
 * must never take down the innocent action its thread runs next (Piscina's
 * idle threads used to sleep in Atomics.wait, so the leftover timer fired
 * during the next task and killed it). Half the innocents run at once after
 * their stray (the rejection lands while they run), half 2.5 s later (it
 * lands while the thread is idle).
 */
describe('stray errors in handler threads', () => {
  const db = withTestDatabase('thread_strays');
  let c: Client;
  let svc: ServiceProcess;

  beforeAll(async () => {
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '100' });
    c = await db.connect();
  });
  afterAll(async () => {
    await svc?.kill();
  });

  it(`never charges an innocent action for another's stray rejection (${REPETITIONS} repetitions)`, async () => {
    const strays: string[] = [];
    const innocents: string[] = [];
    for (let i = 0; i < REPETITIONS; i++) {
      const lockId = 900 + i;
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, payload, run_at)
         VALUES ($1, 'test.thread-stray', '{"stray": true}', now()),
                ($1, 'test.thread-stray', '{"ms": 2000}', now() + make_interval(secs => $2))
         RETURNING id::text`,
        [lockId, i % 2 === 0 ? 0 : 2.5],
      );
      strays.push(rows[0].id);
      innocents.push(rows[1].id);
    }
    const rowsOf = async (ids: string[]) =>
      (
        await c.query<{ id: string; status: string; attempts: number; charged_attempts: number; last_error: string | null }>(
          `SELECT id::text, status, attempts, charged_attempts, last_error FROM actions WHERE id = ANY($1::bigint[]) ORDER BY id`,
          [ids],
        )
      ).rows;
    await waitFor(async () => (await rowsOf(innocents)).every((r) => r.status === 'done' || r.status === 'failed'), 90_000, 200);
    const innocentRows = await rowsOf(innocents);
    const charged = innocentRows.filter((r) => r.status !== 'done' || r.charged_attempts > 0);
    expect(charged).toEqual([]);
    const errors = await c.query(`SELECT action_id::text, outcome, error FROM action_attempts WHERE action_id = ANY($1::bigint[]) AND outcome <> 'done'`, [
      innocents,
    ]);
    expect(errors.rows.filter((r: { outcome: string }) => r.outcome !== 'released')).toEqual([]);
    // The strays' own attempts had ended (returned): done; the instance is still up.
    expect((await rowsOf(strays)).map((r) => r.status)).toEqual(strays.map(() => 'done'));
    expect(svc.child.exitCode).toBeNull();
    const released = innocentRows.filter((r) => r.attempts > 1).length;
    process.stdout.write(`thread strays: ${REPETITIONS} innocents done, none charged, ${released} released and re-run\n`);
  }, 150_000);

  it('charges a stray error to the attempt that left it while that attempt still runs', async () => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload) VALUES (990, 'test.thread-stray', '{"stray": true, "before": true, "ms": 300}') RETURNING id::text`,
    );
    const id = rows[0].id;
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status === 'failed', 60_000, 200);
    const trace = await c.query(`SELECT outcome, error FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [id]);
    expect(trace.rows).toEqual([1, 2, 3].map(() => ({ outcome: 'error', error: `stray rejection from action ${id}` })));
    expect(svc.child.exitCode).toBeNull();
  }, 90_000);
});
