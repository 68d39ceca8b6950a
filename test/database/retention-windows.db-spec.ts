import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RetentionService } from '../../src/retention/retention.service';
import { DELETE_EMPTY_GROUPS_SQL, LOCK_EMPTY_GROUPS_SQL } from '../../src/retention/sql/delete-empty-groups.sql';
import { backendPid, checkTrace, connect, formatTraceReport, startTestApp, waitFor, waitForLockWaiters, withTestApp } from '../support';

/**
 * What retention must not forget (the idempotency window) and what it must not
 * keep forever (the rows of empty groups), against real PostgreSQL. The app
 * runs without a worker, so retention runs only when a test calls it.
 */
describe('retention: idempotency window and empty groups', () => {
  let app: INestApplication;
  let url: string;
  let sql: Client;

  const t = withTestApp('retwin', { env: { WORKER_ENABLED: 'false', RETENTION_DAYS: '1', IDEMPOTENCY_WINDOW_DAYS: '7' } });
  beforeAll(() => ({ app, url, pg: sql } = t));

  /** Marks action `id` finished (`status`) `daysAgo` days ago, enqueued `createdDaysAgo` days ago. */
  const age = async (id: string, status: string, daysAgo: number, createdDaysAgo = daysAgo) => {
    await sql.query(
      `UPDATE actions SET status = $2, finished_at = now() - make_interval(days => $3::int), created_at = now() - make_interval(days => $4::int) WHERE id = $1`,
      [id, status, daysAgo, createdDaysAgo],
    );
  };
  const exists = async (id: string) => (await sql.query('SELECT 1 FROM actions WHERE id = $1', [id])).rowCount === 1;
  const groupRows = async (from: number, to: number) =>
    (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM action_groups WHERE lock_id BETWEEN $1 AND $2', [from, to])).rows[0].n;

  describe('idempotency window (IDEMPOTENCY_WINDOW_DAYS)', () => {
    const body = { type: 'instance.create', lockId: '42', idempotencyKey: 'charge-42', payload: { amount: 42 } };

    it('answers a repeat with 200 and the same action after retention ran, while the key is inside the window', async () => {
      const first = await request(url).post('/actions').send(body).expect(201);
      const plain = await request(url).post('/actions').send({ type: 'instance.create', lockId: '43' }).expect(201);
      // Finished 3 days ago: past RETENTION_DAYS=1, inside IDEMPOTENCY_WINDOW_DAYS=7.
      await age(first.body.id, 'done', 3);
      await age(plain.body.id, 'done', 3);

      await app.get(RetentionService).purge();

      expect(await exists(plain.body.id)).toBe(false); // retention did run
      expect(await exists(first.body.id)).toBe(true);
      const repeat = await request(url).post('/actions').send(body).expect(200);
      expect(repeat.body.id).toBe(first.body.id);
      // The database itself still refuses the key, for SQL producers too.
      await expect(sql.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES (42, 'instance.create', 'charge-42')`)).rejects.toThrow(
        /actions_idempotency_key_uq/,
      );
    });

    it('lets the key be used again once the window has passed and retention purged the action', async () => {
      const refund = { type: 'instance.create', lockId: '44', idempotencyKey: 'refund-7' };
      const first = await request(url).post('/actions').send(refund).expect(201);
      await age(first.body.id, 'done', 3, 8); // enqueued 8 days ago: outside the 7-day window

      await app.get(RetentionService).purge();

      expect(await exists(first.body.id)).toBe(false);
      const again = await request(url).post('/actions').send(refund).expect(201);
      expect(again.body.id).not.toBe(first.body.id);
    });

    it('keeps actions whose key is inside the window, and still deletes the unkeyed ones behind them, batch after batch', async () => {
      // 1 500 keyed actions inside the window sit before 2 500 unkeyed ones in finished_at order:
      // every batch must get past them.
      await sql.query(`INSERT INTO actions (type, idempotency_key) SELECT 'instance.create', 'bulk-' || i FROM generate_series(1, 1500) AS i`);
      await sql.query(`INSERT INTO actions (type) SELECT 'instance.create' FROM generate_series(1, 2500)`);
      await sql.query(`UPDATE actions SET status = 'done', finished_at = now() - interval '5 days' - make_interval(secs => id::int), created_at = now() - interval '6 days'
                       WHERE status = 'pending' AND lock_id IS NULL AND idempotency_key LIKE 'bulk-%'`);
      await sql.query(`UPDATE actions SET status = 'done', finished_at = now() - interval '2 days', created_at = now() - interval '2 days'
                       WHERE status = 'pending' AND lock_id IS NULL AND idempotency_key IS NULL`);

      await expect(app.get(RetentionService).purge()).resolves.toBe(2500);
      const bulk = async () => (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE idempotency_key LIKE 'bulk-%'`)).rows[0].n;
      expect(await bulk()).toBe(1500);
      // With a window of 0 the keys live only as long as retention keeps their actions.
      await app.get(RetentionService).purge(1, 0);
      expect(await bulk()).toBe(0);
    });

    it('is a validated setting with a default of 7 days', () => {
      expect(loadSettings({}).IDEMPOTENCY_WINDOW_DAYS).toBe(7);
      expect(loadSettings({ IDEMPOTENCY_WINDOW_DAYS: '30' }).IDEMPOTENCY_WINDOW_DAYS).toBe(30);
      expect(() => loadSettings({ IDEMPOTENCY_WINDOW_DAYS: '-1' })).toThrow(/IDEMPOTENCY_WINDOW_DAYS must be an integer from 0 to 36500/);
      expect(() => loadSettings({ IDEMPOTENCY_WINDOW_DAYS: 'a week' })).toThrow(/IDEMPOTENCY_WINDOW_DAYS/);
    });
  });

  describe('empty groups', () => {
    it('removes the group rows of 500 single-action groups once their actions are finished and purged, and keeps groups that hold anything', async () => {
      await sql.query(`INSERT INTO actions (lock_id, type) SELECT g, 'instance.create' FROM generate_series(100001, 100500) AS g`);
      await sql.query(`UPDATE actions SET status = 'done', finished_at = now() - interval '3 days' WHERE lock_id BETWEEN 100001 AND 100500`);
      expect(await groupRows(100001, 100500)).toBe(500);
      // Groups that still hold something, or still have history, stay.
      const keep = async (lockId: number, status: string, daysAgo: number, onFailure = 'block') => {
        const { rows } = await sql.query<{ id: string }>(
          `INSERT INTO actions (lock_id, type, on_failure) VALUES ($1, 'instance.create', $2) RETURNING id::text`,
          [lockId, onFailure],
        );
        if (status !== 'pending') await age(rows[0].id, status, daysAgo);
      };
      await keep(100601, 'pending', 0);
      await keep(100602, 'failed', 3); // blocked under 'block'
      await keep(100603, 'done', 0); // finished recently: kept by RETENTION_DAYS, and so is its group

      await expect(app.get(RetentionService).purge()).resolves.toBe(500);

      expect(await groupRows(100001, 100500)).toBe(0);
      expect(await groupRows(100601, 100603)).toBe(3);
      // A purged group is created again by its next action, which is its head.
      const next = await request(url).post('/actions').send({ type: 'instance.create', lockId: '100007' }).expect(201);
      const { rows } = await sql.query<{ head_id: string; is_head: boolean }>(
        `SELECT g.head_id::text, a.is_head FROM action_groups g JOIN actions a ON a.id = g.head_id WHERE g.lock_id = 100007`,
      );
      expect(rows).toEqual([{ head_id: next.body.id, is_head: true }]);
    });

    it('never lets an insert go on without its group lock when retention deletes the group row it found on conflict', async () => {
      // The insert trigger locks its group with SELECT FOR UPDATE; when the row
      // is absent it runs INSERT ON CONFLICT DO NOTHING and selects again. Here
      // that gap is stretched on purpose: a test-only trigger on the lock rows (action_group_locks, 039)
      // makes the victim's INSERT sleep before its conflict check, so another
      // producer commits the (empty) row meanwhile and retention locks it, then
      // deletes it while the victim waits to lock it.
      const G = 300001;
      await sql.query(`CREATE FUNCTION test_slow_victim() RETURNS trigger LANGUAGE plpgsql AS $$
                       BEGIN
                         IF current_setting('application_name') = 'aq-victim' THEN PERFORM pg_sleep(0.4); END IF;
                         RETURN NEW;
                       END $$`);
      await sql.query(`CREATE TRIGGER test_slow_victim BEFORE INSERT ON action_group_locks FOR EACH ROW EXECUTE FUNCTION test_slow_victim()`);
      const [victim, purger, other] = await Promise.all([connect(t.db.url, { application_name: 'aq-victim' }), connect(t.db.url), connect(t.db.url)]);
      const victimWaits = async (event: RegExp) => {
        const { rows } = await sql.query<{ w: string | null }>(
          `SELECT wait_event_type || ':' || wait_event AS w FROM pg_stat_activity WHERE application_name = 'aq-victim'`,
        );
        return rows.length === 1 && rows[0].w !== null && event.test(rows[0].w);
      };
      try {
        await victim.query('BEGIN');
        const victimInsert = victim.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES ($1, 'instance.create') RETURNING id::text`, [G]);
        await waitFor(() => victimWaits(/PgSleep/), 5_000, 5); // found no row, now creating it
        await sql.query('INSERT INTO action_groups (lock_id) VALUES ($1)', [G]); // another producer's empty row commits
        await purger.query('BEGIN');
        const { rows: locked } = await purger.query<{ lock_id: string }>(LOCK_EMPTY_GROUPS_SQL, [G - 1, 1]);
        expect(locked).toEqual([{ lock_id: String(G) }]);
        await waitFor(() => victimWaits(/^Lock:/), 5_000, 5); // conflict seen; now waiting to lock the row
        await purger.query(DELETE_EMPTY_GROUPS_SQL, [[String(G)]]);
        await purger.query('COMMIT');
        const first = (await victimInsert).rows[0].id;
        // A second producer while the victim's transaction is still open: it
        // must queue behind the victim's group lock, not become a second head.
        // Waited for, not slept: on a loaded machine a sleep let the victim commit first (no race).
        const otherPid = await backendPid(other);
        const secondInsert = other.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES ($1, 'instance.create') RETURNING id::text`, [G]);
        await waitForLockWaiters(t.db.name, 1, [otherPid]);
        await victim.query('COMMIT');
        const second = (await secondInsert).rows[0].id;

        const { rows } = await sql.query<{ heads: string[]; group_head: string | null }>(
          `SELECT coalesce((SELECT array_agg(id::text ORDER BY id) FROM actions WHERE lock_id = $1 AND is_head), '{}') AS heads,
                  (SELECT head_id::text FROM action_groups WHERE lock_id = $1) AS group_head`,
          [G],
        );
        expect({ first, second, ...rows[0] }).toEqual({ first, second, heads: [first], group_head: first });
      } finally {
        await Promise.all([victim.end(), purger.end(), other.end()]);
        await sql.query('DROP TRIGGER IF EXISTS test_slow_victim ON action_group_locks');
        await sql.query('DROP FUNCTION IF EXISTS test_slow_victim()');
      }
    });

    it('keeps one head per group, the smallest holding id, when producers race inserts into groups that retention is purging', async () => {
      const FIRST = 200001;
      const GROUPS = 12;
      const LAST = FIRST + GROUPS - 1;
      const retention = app.get(RetentionService);
      // An action in no group holds this key, so a producer repeating it into a
      // new group commits that group's row empty (ON CONFLICT DO NOTHING): the
      // rows retention then deletes while other producers are locking them.
      await sql.query(`INSERT INTO actions (type, idempotency_key) VALUES ('instance.create', 'race-taken')`);
      const clients = await Promise.all(Array.from({ length: 5 }, () => connect(t.db.url)));
      const [p1, p2, p3, emptier, cleaner] = clients;
      const deadline = Date.now() + 4_000;
      const group = () => FIRST + Math.floor(Math.random() * GROUPS);
      let inserted = 0;
      let purged = 0;
      const produce = async (c: Client) => {
        while (Date.now() < deadline) {
          if (Math.random() < 0.2) {
            // Two groups in one transaction, in lock_id order as documented.
            const [a, b] = [group(), group()].sort((x, y) => x - y);
            await c.query('BEGIN');
            await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.create', '{"durationMs": 0}')`, [a]);
            await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.create', '{"durationMs": 0}')`, [b]);
            await c.query('COMMIT');
            inserted += 2;
          } else {
            await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.create', '{"durationMs": 0}')`, [group()]);
            inserted += 1;
          }
        }
      };
      const createEmptyGroups = async () => {
        while (Date.now() < deadline) {
          await emptier.query(`INSERT INTO actions (lock_id, type, idempotency_key) VALUES ($1, 'instance.create', 'race-taken') ON CONFLICT DO NOTHING`, [
            group(),
          ]);
        }
      };
      // Empties whole groups again (cancel, then delete the finished rows), so they keep becoming purgeable.
      const emptyGroups = async () => {
        while (Date.now() < deadline) {
          const g = group();
          await cleaner.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE lock_id = $1 AND status = 'pending'`, [g]);
          await cleaner.query(`DELETE FROM actions WHERE lock_id = $1 AND status = 'cancelled'`, [g]);
        }
      };
      const purge = async () => {
        while (Date.now() < deadline) purged += await retention.purgeEmptyGroups();
      };
      try {
        await Promise.all([produce(p1), produce(p2), produce(p3), createEmptyGroups(), emptyGroups(), purge()]);
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
      expect(inserted).toBeGreaterThan(100);
      expect(purged).toBeGreaterThan(10);

      // Every group that holds actions: exactly one head, its smallest holding
      // id, mirrored by its group row.
      const { rows: groups } = await sql.query<{ lock_id: string; first_id: string; heads: string[]; group_head: string | null; has_row: boolean }>(
        `SELECT a.lock_id::text, min(a.id)::text AS first_id,
                coalesce(array_agg(a.id::text ORDER BY a.id) FILTER (WHERE a.is_head), '{}') AS heads,
                (SELECT g.head_id::text FROM action_groups g WHERE g.lock_id = a.lock_id) AS group_head,
                EXISTS (SELECT 1 FROM action_groups g WHERE g.lock_id = a.lock_id) AS has_row
         FROM actions a WHERE a.holds_group AND a.lock_id BETWEEN $1 AND $2 GROUP BY a.lock_id ORDER BY a.lock_id`,
        [FIRST, LAST],
      );
      expect(groups.length).toBeGreaterThan(0);
      for (const g of groups) {
        expect(g).toEqual({ lock_id: g.lock_id, first_id: g.first_id, heads: [g.first_id], group_head: g.first_id, has_row: true });
      }
      // No group row names a head that does not hold it; no finished row is a head.
      const { rows: stale } = await sql.query(
        `SELECT g.lock_id::text FROM action_groups g
         WHERE g.lock_id BETWEEN $1 AND $2 AND g.head_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.id = g.head_id AND a.holds_group AND a.is_head)
         UNION ALL
         SELECT a.lock_id::text FROM actions a WHERE a.lock_id BETWEEN $1 AND $2 AND a.is_head AND NOT a.holds_group`,
        [FIRST, LAST],
      );
      expect(stale).toEqual([]);

      // And the survivors run in id order, one at a time per group.
      const pending = (
        await sql.query<{ id: string }>(`SELECT id::text FROM actions WHERE lock_id BETWEEN $1 AND $2 AND status = 'pending'`, [FIRST, LAST])
      ).rows.map((r) => r.id);
      const worker = await startTestApp(t.db.url, { WORKER_CONCURRENCY: '8' });
      try {
        await waitFor(async () => {
          const { rows } = await sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM actions WHERE lock_id BETWEEN $1 AND $2 AND status <> 'done' AND status <> 'cancelled'`,
            [FIRST, LAST],
          );
          return rows[0].n === 0;
        }, 60_000);
      } finally {
        await worker.app.close();
      }
      const lockIds = Array.from({ length: GROUPS }, (_, i) => String(FIRST + i));
      const report = await checkTrace(sql, { expectDone: pending, lockIds });
      // (Rows that earlier tests finished by SQL have no trace; only order, overlaps and loss matter here.)
      const problems = { orderViolations: report.orderViolations, overlaps: report.overlaps, lost: report.lost };
      expect({ problems, report: formatTraceReport(report) }).toEqual({
        problems: { orderViolations: [], overlaps: [], lost: [] },
        report: expect.any(String),
      });
      expect(report.attemptCount).toBeGreaterThanOrEqual(pending.length);
    });
  });
});
