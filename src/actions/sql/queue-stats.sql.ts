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
 *   (docs/flow-control.md), whatever their run_at: while the queue is paused,
 *   every one (due_heads / scheduled_heads, by the caller); else the heads of
 *   a paused type (a walk of the claim indexes, only while a type is paused)
 *   plus the head of each paused group (one probe of
 *   actions_group_holding_idx per group pause).
 * - rate_due / rate_scheduled: heads not paused that wait for a token. A
 *   type's bucket lets the claim take floor(level) of its due heads now
 *   (aq_flow_take_tokens, 031): the rest of that type's due heads wait (one
 *   walk of the claim indexes, only while a type has a rate limit). A group
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
 *   or empty buckets exist, the walk passes the heads they hold back, testing
 *   each (its group against a hash of the paused groups).
 * - blocked_groups: through actions_blocked_idx (one entry per blocked group).
 * - paused_queue, paused_types, paused_groups: the active pauses
 *   (action_pauses, src/database/sql/030-flow-control.up.sql), one scan of
 *   that table, whose size is the number of paused targets.
 *
 * Each part that only flow control needs is gated by a condition on the
 * small tables (a one-time filter), so with no pause and no rate limit it
 * costs what it did before. A head's group is tested against the paused
 * groups with NOT IN over them (one hash, built once per read), neither an
 * anti-join (the walks would lose their index order and sort every head) nor
 * a correlated probe (whose cost, charged per head, put the plan's estimate
 * over PostgreSQL's JIT threshold: compiling it took 2 s a read).
 */
export const QUEUE_STATS_SQL = `
WITH f AS MATERIALIZED (
  SELECT p.paused_queue, p.types, p.paused_types, p.paused_groups,
         coalesce(b.limited, '{}') AS limited, coalesce(b.allowances, '{}') AS allowances, coalesce(b.empty, '{}') AS empty
  FROM (SELECT count(*) FILTER (WHERE scope = 'queue') > 0 AS paused_queue,
               coalesce(array_agg(type) FILTER (WHERE scope = 'type'), '{}') AS types,
               count(*) FILTER (WHERE scope = 'type')::int AS paused_types,
               count(*) FILTER (WHERE scope = 'group')::int AS paused_groups
        FROM action_pauses WHERE until IS NULL OR until > now()) AS p
  CROSS JOIN LATERAL (
    -- Types with a rate limit, not paused: how many due heads each may start now.
    SELECT array_agg(r.type) AS limited, array_agg(r.allowance) AS allowances,
           array_agg(r.type) FILTER (WHERE r.allowance < 1) AS empty
    FROM (SELECT r.type, floor(least(r.burst + 0.999, r.tokens + greatest(0, extract(epoch FROM now() - r.refilled_at)) * r.per_second))::int AS allowance
          FROM action_rate_limits AS r
          WHERE r.per_second IS NOT NULL AND NOT p.paused_queue AND r.type <> ALL(p.types)) AS r
  ) AS b
), heads AS NOT MATERIALIZED (
  SELECT a.id, a.type, a.lock_id, a.run_at, a.created_at FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined
  UNION ALL
  SELECT a.id, a.type, a.lock_id, a.run_at, a.created_at FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND a.quarantined
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
  ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now())
   + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now()))::int AS due_heads,
  ((SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at > now())
   + (SELECT count(*) FROM actions WHERE is_head AND status = 'pending' AND quarantined AND run_at > now()))::int AS scheduled_heads,
  (SELECT coalesce(sum(x.due), 0)::int FROM (
     SELECT count(*) FILTER (WHERE h.run_at <= now()) AS due FROM heads AS h
     WHERE NOT (SELECT paused_queue FROM f) AND (SELECT paused_types FROM f) > 0 AND h.type = ANY((SELECT types FROM f)::text[])
     UNION ALL
     SELECT count(*) FILTER (WHERE g.run_at <= now()) FROM action_pauses AS x
     CROSS JOIN LATERAL (SELECT a.type, a.run_at, a.is_head, a.status FROM actions AS a
                         WHERE a.holds_group AND a.lock_id = x.lock_id ORDER BY a.id LIMIT 1) AS g
     WHERE NOT (SELECT paused_queue FROM f) AND (SELECT paused_groups FROM f) > 0
       AND x.scope = 'group' AND (x.until IS NULL OR x.until > now())
       AND g.is_head AND g.status = 'pending' AND g.type <> ALL((SELECT types FROM f)::text[])
   ) AS x) AS paused_due,
  (SELECT coalesce(sum(x.n), 0)::int FROM (
     SELECT count(*) FILTER (WHERE h.run_at > now()) AS n FROM heads AS h
     WHERE NOT (SELECT paused_queue FROM f) AND (SELECT paused_types FROM f) > 0 AND h.type = ANY((SELECT types FROM f)::text[])
     UNION ALL
     SELECT count(*) FILTER (WHERE g.run_at > now()) FROM action_pauses AS x
     CROSS JOIN LATERAL (SELECT a.type, a.run_at, a.is_head, a.status FROM actions AS a
                         WHERE a.holds_group AND a.lock_id = x.lock_id ORDER BY a.id LIMIT 1) AS g
     WHERE NOT (SELECT paused_queue FROM f) AND (SELECT paused_groups FROM f) > 0
       AND x.scope = 'group' AND (x.until IS NULL OR x.until > now())
       AND g.is_head AND g.status = 'pending' AND g.type <> ALL((SELECT types FROM f)::text[])
   ) AS x) AS paused_scheduled,
  (SELECT coalesce(sum(greatest(0, n.due - l.allowance)), 0)::int
   FROM (SELECT h.type, count(*) AS due FROM heads AS h
         WHERE cardinality((SELECT limited FROM f)) > 0 AND h.run_at <= now() AND h.type = ANY((SELECT limited FROM f)::text[])
           AND (h.lock_id IS NULL OR h.lock_id NOT IN (SELECT x.lock_id FROM action_pauses AS x WHERE x.scope = 'group' AND (x.until IS NULL OR x.until > now()))) -- a paused group's head is paused
         GROUP BY h.type) AS n
   JOIN unnest((SELECT limited FROM f)::text[], (SELECT allowances FROM f)::int[]) AS l(type, allowance) ON l.type = n.type) AS rate_due,
  (SELECT count(*)::int FROM action_group_rate_limits AS g
   JOIN actions AS a ON a.id = g.held_id
   WHERE NOT (SELECT paused_queue FROM f) AND g.held_until > now()
     AND a.is_head AND a.status = 'pending' AND a.run_at = g.held_until AND a.type <> ALL((SELECT types FROM f)::text[])
     AND (a.lock_id IS NULL OR a.lock_id NOT IN (SELECT x.lock_id FROM action_pauses AS x WHERE x.scope = 'group' AND (x.until IS NULL OR x.until > now())))) AS rate_scheduled,
  (SELECT extract(epoch FROM now() - min(d.due_since))::float8 FROM (
     (SELECT greatest(o.run_at, o.created_at) AS due_since FROM (
        SELECT run_at, created_at, type, lock_id FROM actions
        WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now() AND NOT (SELECT paused_queue FROM f)
        ORDER BY run_at, id OFFSET 0) AS o
      WHERE o.type <> ALL((SELECT types FROM f)::text[]) AND o.type <> ALL((SELECT empty FROM f)::text[])
        AND (o.lock_id IS NULL OR o.lock_id NOT IN (SELECT x.lock_id FROM action_pauses AS x WHERE x.scope = 'group' AND (x.until IS NULL OR x.until > now())))
      LIMIT 100)
     UNION ALL
     (SELECT greatest(o.run_at, o.created_at) FROM (
        SELECT run_at, created_at, type, lock_id FROM actions
        WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now() AND NOT (SELECT paused_queue FROM f)
        ORDER BY run_at, id OFFSET 0) AS o
      WHERE o.type <> ALL((SELECT types FROM f)::text[]) AND o.type <> ALL((SELECT empty FROM f)::text[])
        AND (o.lock_id IS NULL OR o.lock_id NOT IN (SELECT x.lock_id FROM action_pauses AS x WHERE x.scope = 'group' AND (x.until IS NULL OR x.until > now())))
      LIMIT 100)
   ) AS d) AS oldest_due_age_s,
  (SELECT count(*) FROM actions WHERE status = 'failed' AND holds_group AND lock_id IS NOT NULL)::int AS blocked_groups,
  f.paused_queue, f.paused_types, f.paused_groups
FROM f`;

/** Exact counts by status, one sequential scan: run only while the table is small. */
export const EXACT_STATUS_COUNTS_SQL = `SELECT status, count(*)::int AS n FROM actions GROUP BY status`;
