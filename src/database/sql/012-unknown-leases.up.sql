-- Leases a worker holds in the database but not in memory: granted by a
-- statement (a claim, a finish's hand-offs) whose answer never arrived (its
-- client-side timeout fired, a partition mid-statement). PostgreSQL may even
-- run such a statement long after it was sent, when the network comes back.
-- Nobody runs these actions; left to expire they would count as lost with
-- their instance (011), and after a partition the innocent actions they hold
-- would be lost twice in a row and become suspects. The worker releases them
-- instead, uncharged and not counted as a loss (they never ran).
--
-- p_held: the action ids the worker holds (running, or being recorded).
-- p_granted_before: only leases granted before this database time. The worker
-- reads the database clock first (D), then takes p_held, then sends
-- D - (its statement timeout + a margin): a statement that granted a lease
-- before that was sent before it, so its answer has either been handled (the
-- lease is in p_held, or its attempt is recorded) or been given up by then,
-- however long this statement itself takes to arrive.
-- An expired lease is left to the reaper (a loss, if its instance is gone).
-- p_culprit 0 (no action has that id) makes aq_end_lost_attempts release each
-- one uncharged with its suspect state unchanged.
CREATE FUNCTION aq_release_unknown_leases(p_worker text, p_held bigint[], p_granted_before timestamptz)
  RETURNS TABLE (action_id bigint, attempt int, worker_id text, status text, charged int)
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM aq_act_for_worker(p_worker, 0, '{}', '{}');
  RETURN QUERY SELECT * FROM aq_end_lost_attempts(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.status = 'running' AND a.lease_owner = p_worker AND a.id <> ALL(p_held)
      AND a.attempt_started_at < p_granted_before AND a.lease_expires_at >= now()
    FOR UPDATE SKIP LOCKED
  ), 0, 'released', 'lease granted by a statement whose answer never arrived', 0, false);
END $$;
