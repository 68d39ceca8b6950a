import { Client } from 'pg';
import { checkTrace, formatTraceReport, peakRunningByWorker, ServiceProcess, startServiceProcess, withTestDatabase } from '../support';

/**
 * Several finishing statements of one worker in flight at once (the
 * AttemptFinisher pipelines batches of at least 32 attempts when the worker
 * has the slots): one service process with 256 slots drains 6 000 instant
 * actions, 5 000 of them in 500 groups of 10. The database must be seen
 * running two or more of its finishing statements at the same moment, and
 * the trace must still show every guarantee: no overlap within a group, id
 * order, each action done exactly once, and never more than 256 attempts of
 * the instance running at once (hand-offs and claims of concurrent
 * statements included).
 */
describe('pipelined finishing statements', () => {
  const SLOTS = 256;
  const GROUPED = 5_000;
  const UNGROUPED = 1_000;
  // Migrated, with no service yet, so the backlog is in place before the service starts.
  const db = withTestDatabase('pipelined');
  let service: ServiceProcess | undefined;
  let pg: Client;

  beforeAll(async () => {
    pg = await db.connect();
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('keeps order, exclusivity and the slot limit with several batches in flight', async () => {
    await pg.query(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT 9000 + i % 500, 'instance.update', '{"durationMs": 0}'::jsonb FROM generate_series(1, $1::int) AS i ORDER BY i`,
      [GROUPED],
    );
    await pg.query(`INSERT INTO actions (type, payload) SELECT 'instance.update', '{"durationMs": 0}'::jsonb FROM generate_series(1, $1::int)`, [UNGROUPED]);

    service = await startServiceProcess(db.url, {
      WORKER_CONCURRENCY: String(SLOTS),
      DB_POOL_SIZE: '10',
      WORKER_POLL_INTERVAL_MS: '200',
      LOG_LEVEL: 'warn',
    });

    // Watch the service's backends while it drains: the most finishing
    // statements active at one moment.
    let peakInFlight = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await pg.query<{ finishing: number; left: number }>(
        `SELECT (SELECT count(*)::int FROM pg_stat_activity
                  WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
                    AND query LIKE '%aq_finish_attempts(%') AS finishing,
                (SELECT count(*)::int FROM actions WHERE status IN ('pending', 'running')) AS left`,
      );
      peakInFlight = Math.max(peakInFlight, rows[0].finishing);
      if (rows[0].left === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0].left} actions still open after 60 s`);
    }
    expect(peakInFlight).toBeGreaterThanOrEqual(2);

    const report = await checkTrace(pg);
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    expect(report.actionCount).toBe(GROUPED + UNGROUPED);
    expect(report.attemptCount).toBe(GROUPED + UNGROUPED);
    expect(report.overlaps).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(report.doneMoreThanOnce).toEqual([]);

    // Never more than SLOTS attempts of the instance at once.
    const peak = Object.values(await peakRunningByWorker(pg));
    expect(peak).toHaveLength(1);
    expect(peak[0]).toBeLessThanOrEqual(SLOTS);

    expect(await service.stop()).toBe(0);
    service = undefined;
    process.stdout.write(`pipelined finish: peak ${peakInFlight} finishing statements in flight, peak ${peak[0]} attempts running\n`);
  }, 120_000);
});
