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
 * - paused_due / paused_scheduled: those of them a pause holds back
 *   (docs/flow-control.md), whatever their run_at: every one while the queue
 *   is paused; else the heads of a paused type (a walk of the claim indexes,
 *   only while a type is paused) plus the head of each paused group (one probe
 *   of actions_group_holding_idx per group pause).
 * - rate_due / rate_scheduled: heads not paused that wait for a token. A
 *   type's bucket lets the claim take floor(level) of its due heads now
 *   (aq_flow_take_tokens, 031): the rest of that type's due heads wait (a
 *   count of the type's due heads, only for types with a rate limit). A group
 *   bucket that held its head back moved the head's run_at to when its token
 *   accrues (held_id, held_until): one probe per group rate limit.
 * - oldest_due_age_s: how long the oldest due, claimable action (a pending
 *   head with run_at <= now(), not paused, of a type whose bucket has a
 *   token) has been due: now() - greatest(run_at, created_at), since an
 *   action enqueued with a past runAt became due when it was enqueued. Taken
 *   over the 100 earliest run_at of each claim index: a later row has run_at
 *   (so a due time) at least that of the 100th, so the minimum is exact
 *   unless over 100 heads were enqueued with a runAt in the past, when it is
 *   the oldest among those 100. Null when nothing is claimable. While pauses
 *   or empty buckets exist, the walk passes the heads they hold back.
 * - blocked_groups: through actions_blocked_idx (one entry per blocked group).
 * - paused_queue, paused_types, paused_groups: the active pauses
 *   (action_pauses, src/database/sql/030-flow-control.up.sql), one scan of
 *   that table, whose size is the number of paused targets.
 *
 * Each part that only flow control needs is gated by a condition on the
 * small tables (PostgreSQL's one-time filter), so with no pause and no rate
 * limit it costs what it did before.
 */
export const QUEUE_STATS_SQL = `
WITH heads AS NOT MATERIALIZED (
  SELECT a.id, a.type, a.lock_id, a.run_at, a.created_at FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined
  UNION ALL
  SELECT a.id, a.type, a.lock_id, a.run_at, a.created_at FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND a.quarantined
), p AS MATERIALIZED (
  SELECT count(*) FILTER (WHERE scope = 'queue') > 0 AS paused_queue,
         coalesce(array_agg(type) FILTER (WHERE scope = 'type'), '{}') AS types,
         count(*) FILTER (WHERE scope = 'type')::int AS paused_types,
         count(*) FILTER (WHERE scope = 'group')::int AS paused_groups
  FROM action_pauses WHERE until IS NULL OR until > now()
), b AS MATERIALIZED (
  -- Types with a rate limit, not paused: how many due heads each may start now.
  SELECT r.type, floor(least(r.burst + 0.999, r.tokens + greatest(0, extract(epoch FROM now() - r.refilled_at)) * r.per_second))::int AS allowance
  FROM action_rate_limits AS r
  WHERE r.per_second IS NOT NULL AND NOT (SELECT paused_queue FROM p) AND r.type <> ALL((SELECT types FROM p)::text[])
), ph AS MATERIALIZED (
  -- Paused heads (ids), while anything is paused.
  SELECT h.id, h.run_at <= now() AS due FROM heads AS h
  WHERE (SELECT paused_queue FROM p)
  UNION ALL
  SELECT h.id, h.run_at <= now() FROM heads AS h
  WHERE NOT (SELECT paused_queue FROM p) AND (SELECT paused_types FROM p) > 0 AND h.type = ANY((SELECT types FROM p)::text[])
  UNION ALL
  SELECT g.id, g.run_at <= now() FROM action_pauses AS x
  CROSS JOIN LATERAL (SELECT a.id, a.type, a.run_at, a.is_head, a.status FROM actions AS a
                      WHERE a.holds_group AND a.lock_id = x.lock_id ORDER BY a.id LIMIT 1) AS g
  WHERE NOT (SELECT paused_queue FROM p) AND (SELECT paused_groups FROM p) > 0
    AND x.scope = 'group' AND (x.until IS NULL OR x.until > now())
    AND g.is_head AND g.status = 'pending' AND g.type <> ALL((SELECT types FROM p)::text[])
), c AS (
  SELECT
    ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now())
     + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now()))::int AS due_heads,
    ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at > now())
     + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at > now()))::int AS scheduled_heads,
    (SELECT count(*) FILTER (WHERE due) FROM ph)::int AS paused_due,
    (SELECT count(*) FILTER (WHERE NOT due) FROM ph)::int AS paused_scheduled,
    (SELECT coalesce(sum(greatest(0, n.due - b.allowance)), 0) FROM b
     CROSS JOIN LATERAL (SELECT count(*) AS due FROM heads AS h
                         WHERE h.type = b.type AND h.run_at <= now() AND h.id NOT IN (SELECT id FROM ph)) AS n)::int AS rate_due,
    (SELECT count(*) FROM action_group_rate_limits AS g
     JOIN actions AS a ON a.id = g.held_id AND a.is_head AND a.status = 'pending' AND a.run_at = g.held_until
     WHERE g.held_until > now() AND a.id NOT IN (SELECT id FROM ph))::int AS rate_scheduled
)
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
  c.due_heads, c.scheduled_heads, c.paused_due, c.paused_scheduled, c.rate_due, c.rate_scheduled,
  (SELECT extract(epoch FROM now() - min(d.due_since))::float8 FROM (
     (SELECT greatest(run_at, created_at) AS due_since FROM actions
      WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now() AND NOT (SELECT paused_queue FROM p)
        AND NOT EXISTS (SELECT 1 FROM ph WHERE ph.id = actions.id)
        AND NOT EXISTS (SELECT 1 FROM b WHERE b.type = actions.type AND b.allowance < 1)
      ORDER BY run_at, id LIMIT 100)
     UNION ALL
     (SELECT greatest(run_at, created_at) FROM actions
      WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now() AND NOT (SELECT paused_queue FROM p)
        AND NOT EXISTS (SELECT 1 FROM ph WHERE ph.id = actions.id)
        AND NOT EXISTS (SELECT 1 FROM b WHERE b.type = actions.type AND b.allowance < 1)
      ORDER BY run_at, id LIMIT 100)
   ) AS d) AS oldest_due_age_s,
  (SELECT count(*) FROM actions WHERE status = 'failed' AND holds_group AND lock_id IS NOT NULL)::int AS blocked_groups,
  p.paused_queue, p.paused_types, p.paused_groups
FROM p, c`;

/** Exact counts by status, one sequential scan: run only while the table is small. */
export const EXACT_STATUS_COUNTS_SQL = `SELECT status, count(*)::int AS n FROM actions GROUP BY status`;
