// @run-alone (test/support/run-alone.ts): statement limits of 20 and 50 ms.
import request from 'supertest';
import { Client, Pool } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RetentionService } from '../../src/retention/retention.service';
import { isStatementTimeout } from '../../src/database/statement-timeout';
import { sleep, startTestApp, withTestDatabase } from '../support';

/** Finished actions of a long history under a DBA's short statement_timeout (docs/operations.md, "DBA limits"). */
const RECENT = 100_000;
const OLD = 60_000;
/** Periodic retention runs the 20 ms test allows (a run ends early when one row's statement times out six times in a row, over about 3 s). */
const RETENTION_RUNS = 3;
/** How long the retention test stalls the server (ms): longer than 3 runs of 3 immediate retries, shorter than one run's retries with their waits (3.15 s). */
const STALL_MS = 1_500;

/**
 * Writes RECENT actions that ended over the last ~50 minutes (what the
 * activity roll-up reads) and OLD ones that ended 2..30 days ago (what
 * retention deletes; four attempts each), with their trace rows, as a bulk
 * load (triggers off).
 */
async function fillHistory(c: Client): Promise<void> {
  await c.query('SET session_replication_role = replica');
  await c.query(
    `INSERT INTO actions (id, lock_id, type, payload, status, is_head, holds_group, attempts, charged_attempts,
                          run_at, created_at, started_at, finished_at)
     SELECT nextval('actions_id_seq'), i % 5000, 'instance.update', '{}', 'done', false, false, 1, 1, t - interval '50 ms', t - interval '50 ms', t - interval '20 ms', t
     FROM generate_series(1, $1::int + $2::int) AS i
     CROSS JOIN LATERAL (SELECT CASE WHEN i <= $1::int THEN now() - interval '10 seconds' - i * interval '30 ms'
                                     ELSE now() - interval '2 days' - (i - $1::int) * interval '40 s' END AS t) AS s
     ORDER BY i`,
    [RECENT, OLD],
  );
  await c.query(
    `INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome)
     SELECT id, lock_id, 1, 'test', started_at, finished_at, 'done' FROM actions WHERE finished_at > now() - interval '1 day'`,
  );
  // The old ones were retried: four attempts each, three of them errors.
  await c.query(
    `INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
     SELECT id, lock_id, n, 'test', started_at, finished_at, CASE WHEN n = 4 THEN 'done' ELSE 'error' END,
            CASE WHEN n < 4 THEN 'cloud API answered 503: service temporarily unavailable, retry later' END
     FROM actions CROSS JOIN generate_series(1, 4) AS n WHERE finished_at < now() - interval '1 day'`,
  );
  await c.query('SET session_replication_role = origin');
  await c.query('ANALYZE actions');
  await c.query('ANALYZE action_attempts');
}

describe("admin reads and retention under a DBA's short statement_timeout", () => {
  const db = withTestDatabase('dba-timeouts');
  let pg: Client;

  beforeAll(async () => {
    pg = await db.connect();
    await fillHistory(pg);
    // New sessions (the app's pool) take it; this one keeps no limit for the checks.
    await pg.query(`ALTER DATABASE ${db.name} SET statement_timeout = '50ms'`);
  }, 120_000);

  it('at 50 ms, /stats/activity and the other admin reads never answer 500: 200, or 503 naming the statement timeout', async () => {
    const started = await startTestApp(db.url, { WORKER_ENABLED: 'false' });
    try {
      const routes = [
        '/stats/activity?minutes=60',
        '/stats/activity?minutes=60',
        '/stats/activity?minutes=60',
        '/stats/activity?minutes=60',
        '/stats',
        '/metrics',
        '/groups/blocked?limit=50',
        '/groups/deepest?limit=20',
        '/groups/42/timeline?limit=50',
        '/actions?limit=50',
        '/actions?status=done&limit=50',
        '/actions/1',
      ];
      const answers: string[] = [];
      for (const route of routes) {
        const res = await request(started.url).get(route);
        answers.push(`${route} ${res.status}`);
        if (res.status === 503) expect(res.body.message).toMatch(/statement_timeout/);
        else expect(res.status).toBe(200);
        if (route.startsWith('/stats/activity') && res.status === 200) {
          // Served under the limit, from what the roll-up managed so far.
          expect(typeof res.body.countedUpTo).toBe('string');
        }
      }
      // The activity chart itself answers (it is what the dashboard polls).
      expect(answers.filter((a) => a.startsWith('/stats/activity') && a.endsWith(' 200')).length).toBeGreaterThanOrEqual(3);
    } finally {
      await started.app.close();
    }
  }, 120_000);

  it('retention deletes a long history in chunks that fit a limit shorter than its 1 000-row statements (20 ms)', async () => {
    await pg.query(`ALTER DATABASE ${db.name} SET statement_timeout = '20ms'`);
    // The service's own pool type on new sessions, which take the database's limit.
    const pool = new Pool({ connectionString: db.url, max: 2 });
    try {
      expect((await pool.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0].statement_timeout).toBe('20ms');
      const retention = new RetentionService(pool, loadSettings({ RETENTION_DAYS: '1' }));
      // A stall of the server longer than many 20 ms statements, as a
      // checkpoint's fsync or a DBA's lock makes one: the trace table is held
      // for STALL_MS, so every delete (its cascade) waits and is cancelled.
      // Immediate retries would spend all runs within it.
      const stall = await db.connect();
      await stall.query('BEGIN');
      await stall.query('LOCK TABLE action_attempts IN SHARE MODE');
      const stallEnded = sleep(STALL_MS)
        .then(() => stall.query('COMMIT'))
        .finally(() => stall.end());
      // As the service's periodic runs do: a run whose one-row statements
      // still time out (a checkpoint's fsync under a loaded suite) throws and
      // the next run goes on from where the deletions stopped. Without the
      // halving of batches no run would delete anything.
      let deleted = 0;
      for (let run = 1; ; run++) {
        try {
          deleted += await retention.purge(1, 0);
          break;
        } catch (error) {
          if (run === RETENTION_RUNS || !isStatementTimeout(error)) throw error;
        }
      }
      await stallEnded;
      expect(deleted).toBe(OLD);
      const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE finished_at < now() - interval '1 day'`);
      expect(rows[0].n).toBe(0);
      expect((await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n).toBe(RECENT);
      expect((await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM action_attempts')).rows[0].n).toBe(RECENT);
    } finally {
      await pool.end();
    }
  }, 120_000);
});
