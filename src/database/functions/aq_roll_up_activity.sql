-- Adds the actions that ended since the last call to action_activity and
-- returns the new high-water mark (NULL when another session is rolling up
-- right now: its result is as good). Incremental, so each ended action is read
-- once, through actions_finished_at_idx (and actions_blocked_idx for failures
-- under `block`, which keep holding their group):
-- - Only endings stamped at least p_lag ago are read. finished_at is stamped
--   (clock_timestamp()) a little before its transaction commits; an ending
--   that commits later than p_lag after its stamp is missed by the charts.
-- - At most p_max_rows endings per call (the rest on the next calls), and
--   nothing older than p_keep: after a long pause the first call reads at most
--   the last p_keep, never the whole history.
-- - Buckets older than p_keep are deleted.
CREATE OR REPLACE FUNCTION aq_roll_up_activity(p_lag interval, p_keep interval, p_max_rows integer)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_from timestamptz;
  v_to   timestamptz := now() - p_lag;
  v_cut  timestamptz;
BEGIN
  SELECT rolled_up_to INTO v_from FROM action_activity_rollup WHERE id = 1 FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  v_from := greatest(v_from, now() - p_keep);
  IF v_to <= v_from THEN
    RETURN v_from;
  END IF;
  -- Cap the work: stop at the p_max_rows-th ending (index order).
  SELECT a.finished_at INTO v_cut FROM actions AS a
  WHERE a.finished_at > v_from AND a.finished_at <= v_to AND a.finished_at IS NOT NULL AND NOT a.holds_group
  ORDER BY a.finished_at OFFSET p_max_rows - 1 LIMIT 1;
  IF v_cut IS NOT NULL THEN
    v_to := v_cut;
  END IF;
  INSERT INTO action_activity AS b (bucket_start, done, failed, cancelled, latency_count, latency_sum_ms, latency_max_ms)
  SELECT date_bin('10 seconds', e.finished_at, timestamptz 'epoch'),
         count(*) FILTER (WHERE e.status = 'done'),
         count(*) FILTER (WHERE e.status = 'failed'),
         count(*) FILTER (WHERE e.status = 'cancelled'),
         count(e.latency_ms),
         coalesce(sum(e.latency_ms), 0),
         coalesce(max(e.latency_ms), 0)
  FROM (
    SELECT x.status, x.finished_at,
           CASE WHEN x.started_at >= x.run_at
                THEN extract(epoch FROM x.started_at - greatest(x.created_at, x.run_at)) * 1000 END AS latency_ms
    FROM (
      SELECT a.status, a.finished_at, a.started_at, a.run_at, a.created_at FROM actions AS a
      WHERE a.finished_at > v_from AND a.finished_at <= v_to AND a.finished_at IS NOT NULL AND NOT a.holds_group
      UNION ALL
      SELECT a.status, a.finished_at, a.started_at, a.run_at, a.created_at FROM actions AS a
      WHERE a.status = 'failed' AND a.holds_group AND a.finished_at > v_from AND a.finished_at <= v_to
    ) AS x
  ) AS e
  GROUP BY 1
  ON CONFLICT (bucket_start) DO UPDATE
    SET done           = b.done + excluded.done,
        failed         = b.failed + excluded.failed,
        cancelled      = b.cancelled + excluded.cancelled,
        latency_count  = b.latency_count + excluded.latency_count,
        latency_sum_ms = b.latency_sum_ms + excluded.latency_sum_ms,
        latency_max_ms = greatest(b.latency_max_ms, excluded.latency_max_ms);
  UPDATE action_activity_rollup SET rolled_up_to = v_to WHERE id = 1;
  DELETE FROM action_activity WHERE bucket_start < now() - p_keep;
  RETURN v_to;
END $function$;
