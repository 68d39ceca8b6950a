-- Admin reads (GET /stats, /metrics, the dashboard's routes) that cost the same
-- whatever the number of finished actions kept. Nothing here runs in the
-- worker's statements or triggers: the one index below adds, per row version
-- the worker writes, only the test of its predicate (columns that other
-- partial indexes already name, so no HOT update is lost); it receives an
-- entry only when an action becomes a blocking failure. bench/README.md
-- ("Admin reads") has the measurements.

-- The failed actions that still hold their group (policy `block`): one entry
-- per blocked group, plus ungrouped failures under `block`. Counting and
-- listing blocked groups then never walks the history of `skip` failures that
-- actions_failed_idx also holds.
CREATE INDEX actions_blocked_idx ON actions (lock_id, id)
  WHERE status = 'failed' AND holds_group;

-- Activity of the last hour in 10-second buckets, for the dashboard's charts:
-- actions that ended (by final status) and their enqueue-to-start latency.
-- Filled by aq_roll_up_activity below, never by the worker.
CREATE TABLE action_activity (
  bucket_start   timestamptz      NOT NULL,
  done           integer          NOT NULL DEFAULT 0,
  failed         integer          NOT NULL DEFAULT 0,
  cancelled      integer          NOT NULL DEFAULT 0,
  -- Latency from when the action became due (the later of created_at and
  -- run_at) to its first start, over the ended actions that ran exactly once
  -- from that due time (run_at <= started_at: never rescheduled by a retry).
  latency_count  integer          NOT NULL DEFAULT 0,
  latency_sum_ms double precision NOT NULL DEFAULT 0,
  latency_max_ms double precision NOT NULL DEFAULT 0,
  CONSTRAINT action_activity_pkey PRIMARY KEY (bucket_start)
);

-- One row: how far the roll-up has read (finished_at), and its lock.
CREATE TABLE action_activity_rollup (
  id           smallint    NOT NULL,
  rolled_up_to timestamptz NOT NULL,
  CONSTRAINT action_activity_rollup_pkey PRIMARY KEY (id),
  CONSTRAINT action_activity_rollup_single_row CHECK (id = 1)
);
INSERT INTO action_activity_rollup (id, rolled_up_to) VALUES (1, '-infinity');

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
CREATE FUNCTION aq_roll_up_activity(p_lag interval, p_keep interval, p_max_rows int) RETURNS timestamptz
  LANGUAGE plpgsql VOLATILE AS $$
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
END $$;
