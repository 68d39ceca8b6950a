import { join } from 'node:path';
import { newExecutionLogPath, readExecutions, startFixtureService, waitFor, withTestDatabase } from '../support';

const SKEWED_CLOCK = join(__dirname, '..', '..', 'dist', 'test', 'fixtures', 'skewed-clock.js');
const LEASE_MS = 1_500;
/** The worker's wall clock: 10 minutes behind the host's (and so the database's). */
const SKEW_MS = -10 * 60_000;

/**
 * Leases are computed by the database's clock (docs/guarantees.md): a worker
 * whose wall clock is 10 minutes off, in another time zone, still holds
 * leases of exactly LEASE_MS by the database's now(), keeps a long action
 * alive past several lease lengths, and stamps nothing with its own time.
 * The skew is real: the worker's own execution log reads 10 minutes behind.
 *
 * Seen to fail against a deliberately broken build: the heartbeat's lease
 * computed from the worker's clock (`now()` in extend-leases.sql.ts replaced
 * by a parameter bound to the worker's `new Date()`): 10 minutes behind, the
 * heartbeat never extends the lease, and the action never finishes.
 */
describe('a worker with a skewed clock in another time zone', () => {
  const db = withTestDatabase('clock_skew');
  const execLog = newExecutionLogPath('skew');

  it('holds leases of LEASE_MS by the database clock and finishes a long action in one attempt', async () => {
    const c = await db.connect();
    const svc = await startFixtureService(
      db.url,
      { LEASE_MS: String(LEASE_MS), REAPER_INTERVAL_MS: '100', TZ: 'Pacific/Kiritimati', CLOCK_SKEW_MS: String(SKEW_MS), EXEC_LOG: execLog },
      ['--require', SKEWED_CLOCK],
    );
    try {
      const {
        rows: [{ id }],
      } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES (1, 'test.sleep', '{"ms": 4500}') RETURNING id::text`);
      // While it runs (three lease lengths), every read of the lease is LEASE_MS or less ahead of the database's now().
      const ahead: number[] = [];
      await waitFor(
        async () => {
          const { rows } = await c.query<{ status: string; ahead_ms: number | null; started_ms: number | null }>(
            `SELECT status, extract(epoch FROM lease_expires_at - now()) * 1000 AS ahead_ms,
                    extract(epoch FROM now() - attempt_started_at) * 1000 AS started_ms FROM actions WHERE id = $1`,
            [id],
          );
          if (rows[0].status === 'running' && rows[0].ahead_ms !== null) ahead.push(Number(rows[0].ahead_ms));
          return rows[0].status === 'done';
        },
        20_000,
        100,
      );
      console.log(
        `clock skew ${SKEW_MS} ms: lease ahead of the database's now() between ${Math.min(...ahead).toFixed(0)} and ${Math.max(...ahead).toFixed(0)} ms over ${ahead.length} reads`,
      );
      expect(ahead.length).toBeGreaterThan(10);
      expect(Math.max(...ahead)).toBeLessThanOrEqual(LEASE_MS + 5);
      expect(Math.min(...ahead)).toBeGreaterThan(0);

      // One attempt, stamped by the database: within seconds of its now(), not 10 minutes off.
      const { rows } = await c.query<{ attempts: number; outcomes: string[]; off_ms: number }>(
        `SELECT a.attempts, array_agg(t.outcome) AS outcomes,
                max(abs(extract(epoch FROM now() - greatest(a.finished_at, t.finished_at)))) * 1000 AS off_ms
         FROM actions a JOIN action_attempts t ON t.action_id = a.id WHERE a.id = $1 GROUP BY a.attempts`,
        [id],
      );
      expect(rows[0]).toMatchObject({ attempts: 1, outcomes: ['done'] });
      expect(Number(rows[0].off_ms)).toBeLessThan(60_000);

      // The skew was real: the handler's own clock read about 10 minutes behind.
      const [run] = readExecutions(execLog).filter((e) => e.id === id);
      expect(run.start - Date.now()).toBeLessThan(SKEW_MS + 60_000);
    } finally {
      await svc.stop();
    }
  });
});
