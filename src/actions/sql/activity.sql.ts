/*
 * The activity of the last hour for the dashboard's charts (GET
 * /stats/activity): 10-second buckets of ended actions and enqueue-to-start
 * latency, kept by aq_roll_up_activity (src/database/functions/aq_roll_up_activity.sql).
 */

/** Width of one activity bucket (seconds); fixed by aq_roll_up_activity. */
export const ACTIVITY_BUCKET_SECONDS = 10;

/**
 * Adds the endings since the last roll-up to the buckets (incremental, each
 * ending read once; skipped when another session is rolling up).
 * `$1::int` lag (ms) behind now, `$2::int` minutes of buckets kept,
 * `$3::int` most endings read in this call.
 */
export const ROLL_UP_ACTIVITY_SQL = `
SELECT aq_roll_up_activity($1::int * interval '1 millisecond', $2::int * interval '1 minute', $3::int) AS rolled_up_to`;

/**
 * The complete buckets of the last `$1::int` minutes, oldest first, empty ones
 * included (zeros), up to the roll-up's high-water mark; plus that mark.
 */
export const ACTIVITY_SERIES_SQL = `
WITH mark AS (
  SELECT greatest(r.rolled_up_to, now() - $1::int * interval '1 minute') AS upto FROM action_activity_rollup AS r WHERE r.id = 1
),
span AS (
  SELECT date_bin('10 seconds', now() - $1::int * interval '1 minute', timestamptz 'epoch') AS first,
         date_bin('10 seconds', m.upto, timestamptz 'epoch') AS stop,
         m.upto
  FROM mark AS m
)
SELECT span.upto AS rolled_up_to,
       coalesce((
         SELECT json_agg(json_build_object(
                  'start', s.t, 'done', coalesce(b.done, 0), 'failed', coalesce(b.failed, 0),
                  'cancelled', coalesce(b.cancelled, 0), 'latencyCount', coalesce(b.latency_count, 0),
                  'latencySumMs', coalesce(b.latency_sum_ms, 0), 'latencyMaxMs', coalesce(b.latency_max_ms, 0))
                ORDER BY s.t)
         FROM generate_series(span.first, span.stop - interval '10 seconds', interval '10 seconds') AS s(t)
         LEFT JOIN action_activity AS b ON b.bucket_start = s.t
       ), '[]'::json) AS buckets
FROM span`;
