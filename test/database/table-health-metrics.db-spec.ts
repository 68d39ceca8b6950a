import request from 'supertest';
import { metricSample, waitFor, withTestApp } from '../support';

/**
 * `/metrics` shows MVCC pressure on the queue's tables
 * (src/metrics-endpoint/table-health.collector.ts): dead row versions per
 * table and the age of the oldest transaction holding the horizon. Seen
 * failing with the collector left out of MetricsEndpointModule (the series
 * are absent).
 */
describe('table health in /metrics', () => {
  const t = withTestApp('tablehealth', { env: { WORKER_CONCURRENCY: '8' } });

  const scrape = async (): Promise<string> => (await request(t.url).get('/metrics').expect(200)).text;

  it('counts the dead row versions that actions leave while a transaction holds the horizon, and how long it has held it', async () => {
    const holder = await t.db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT txid_current()');
    try {
      await t.pg.query(`INSERT INTO actions (lock_id, type, payload) SELECT i % 5, 'instance.update', '{"durationMs": 0}' FROM generate_series(1, 50) AS i`);
      await waitFor(async () => (await t.pg.query(`SELECT count(*)::int AS n FROM actions WHERE status = 'done'`)).rows[0].n === 50);
      // Each action was claimed and finished after the holder's xid: at least
      // two dead versions each, none removable. The statistics system reports
      // them a second or so later.
      const text = await waitFor(async () => {
        const body = await scrape();
        return (metricSample(body, 'actions_table_dead_tuples', 'table="actions"') ?? 0) >= 100 &&
          (metricSample(body, 'actions_table_live_tuples', 'table="actions"') ?? 0) >= 50 &&
          (metricSample(body, 'actions_mvcc_horizon_age_seconds') ?? 0) >= 1
          ? body
          : undefined;
      }, 20_000);
      expect(metricSample(text, 'actions_table_tuples_updated', 'table="actions"')).toBeGreaterThanOrEqual(100);
      expect(metricSample(text, 'actions_table_tuples_hot_updated', 'table="actions"')).toBeGreaterThanOrEqual(0);
      expect(metricSample(text, 'actions_table_dead_tuples', 'table="action_attempts"')).toBe(0);
      // Every claim and finish since took a transaction id of its own.
      expect(metricSample(text, 'actions_mvcc_horizon_age_transactions')).toBeGreaterThan(2);
    } finally {
      await holder.query('ROLLBACK');
    }
    // Released: no transaction of this database is left holding the horizon for long.
    await waitFor(async () => (metricSample(await scrape(), 'actions_mvcc_horizon_age_seconds') ?? 99) < 1, 20_000);
  }, 60_000);

  it('reports the row versions left for vacuum per action: updates and deletes in the queue tables over attempts recorded', async () => {
    const attemptsCounted = async (): Promise<number> =>
      (await t.pg.query(`SELECT n_tup_ins::int AS n FROM pg_stat_user_tables WHERE relid = 'action_attempts'::regclass`)).rows[0].n;
    const runActions = async (): Promise<void> => {
      const before = await attemptsCounted();
      await t.pg.query(`INSERT INTO actions (lock_id, type, payload) SELECT 100 + i, 'instance.update', '{"durationMs": 0}' FROM generate_series(1, 40) AS i`);
      // A backend reports its counts together, a second or so after its
      // transactions: once the attempts are counted, so are the updates of
      // the statements that recorded them. This connection's own (the
      // insert trigger's head records) are flushed at its next statement.
      await t.pg.query('SELECT pg_stat_force_next_flush()');
      await waitFor(async () => (await attemptsCounted()) >= before + 40, 20_000);
    };
    await runActions();
    await scrape();
    await runActions();
    const perAction = metricSample(await scrape(), 'actions_dead_tuples_per_action');
    // 40 groups emptied by the first round, one action each: the claim and
    // the finish update the action row, the emptying marks the group's head
    // record, and the enqueue appends the group's next record (old ones are
    // deleted eight at a time, at every eighth, not yet here): 3 versions
    // per action. 4 before migration 039, when the enqueue and the emptying
    // each updated the group's row.
    expect(perAction).toBeCloseTo(3, 1);
  }, 60_000);
});
