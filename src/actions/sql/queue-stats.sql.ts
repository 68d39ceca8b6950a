/*
 * The queue-wide figures of `GET /stats` and the `/metrics` gauges, read in a
 * time that does not grow with the finished history (README, "Admin reads"):
 * every count below walks a partial index whose size is the live queue
 * (pending, running, blocked heads), is capped, or is PostgreSQL's own
 * statistics. Only a small table (see QUEUE_STATS_EXACT_MAX_BYTES) is counted
 * row by row, and that scan is bounded by the same limit.
 */

/**
 * Figures read on every call. Parameter: `$1::int` the cap of the failed and
 * cancelled counts (one more than QUEUE_STATS_COUNT_CAP, to tell "exactly
 * the cap" from "more").
 *
 * - pending, running: exact, through actions_pending_idx / actions_running_idx.
 * - failed, cancelled: exact up to the cap, through their partial indexes;
 *   beyond it the caller uses the index's row estimate (`pg_class.reltuples`).
 * - live_rows: PostgreSQL's count of live rows in `actions`
 *   (pg_stat_get_live_tuples, kept by the statistics system, a few seconds
 *   behind), else the planner's estimate (reltuples scaled to the current size).
 * - due_heads / scheduled_heads: pending heads with run_at passed / in the
 *   future, through the two claim indexes (one entry per pending head).
 * - oldest_due_age_s: how long the oldest due, claimable action (a pending
 *   head with run_at <= now()) has been due: now() - greatest(run_at,
 *   created_at), since an action enqueued with a past runAt became due when it
 *   was enqueued. Taken over the 100 earliest run_at of each claim index: a
 *   later row has run_at (so a due time) at least that of the 100th, so the
 *   minimum is exact unless over 100 heads were enqueued with a runAt in the
 *   past, when it is the oldest among those 100. Null when nothing is due.
 * - blocked_groups: through actions_blocked_idx (one entry per blocked group).
 * - paused_queue, paused_types, paused_groups: the active pauses
 *   (action_pauses, src/database/sql/030-flow-control.up.sql), one scan of
 *   that table, whose size is the number of paused targets.
 */
export const QUEUE_STATS_SQL = `
SELECT
  pg_relation_size('actions')::float8 AS table_bytes,
  (SELECT CASE WHEN pg_stat_get_live_tuples(c.oid) > 0 THEN pg_stat_get_live_tuples(c.oid)::float8
               WHEN c.relpages > 0 AND c.reltuples > 0
               THEN c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int)
               ELSE 0 END
   FROM pg_class AS c WHERE c.oid = 'actions'::regclass) AS live_rows,
  (SELECT count(*) FROM actions WHERE status = 'pending')::int AS pending,
  (SELECT count(*) FROM actions WHERE status = 'running')::int AS running,
  (SELECT count(*) FROM (SELECT 1 FROM actions WHERE status = 'failed' LIMIT $1::int) AS f)::int AS failed_capped,
  (SELECT count(*) FROM (SELECT 1 FROM actions WHERE status = 'cancelled' LIMIT $1::int) AS c)::int AS cancelled_capped,
  (SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'actions_failed_idx'::regclass) AS failed_estimate,
  (SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'actions_cancelled_idx'::regclass) AS cancelled_estimate,
  ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now())
   + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now()))::int AS due_heads,
  ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at > now())
   + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at > now()))::int AS scheduled_heads,
  (SELECT extract(epoch FROM now() - min(d.due_since))::float8 FROM (
     (SELECT greatest(run_at, created_at) AS due_since FROM actions
      WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now() ORDER BY run_at, id LIMIT 100)
     UNION ALL
     (SELECT greatest(run_at, created_at) FROM actions
      WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now() ORDER BY run_at, id LIMIT 100)
   ) AS d) AS oldest_due_age_s,
  (SELECT count(*) FROM actions WHERE status = 'failed' AND holds_group AND lock_id IS NOT NULL)::int AS blocked_groups,
  p.paused_queue, p.paused_types, p.paused_groups
FROM (SELECT count(*) FILTER (WHERE scope = 'queue') > 0 AS paused_queue,
             count(*) FILTER (WHERE scope = 'type')::int AS paused_types,
             count(*) FILTER (WHERE scope = 'group')::int AS paused_groups
      FROM action_pauses WHERE until IS NULL OR until > now()) AS p`;

/** Exact counts by status, one sequential scan: run only while the table is small. */
export const EXACT_STATUS_COUNTS_SQL = `SELECT status, count(*)::int AS n FROM actions GROUP BY status`;
