-- Back to 042's schema: the reaper of 008 and the release of unknown leases
-- of 012, picking lost rows one at a time.

CREATE OR REPLACE FUNCTION aq_reap_expired_leases(p_limit int)
  RETURNS TABLE (action_id bigint, attempt int, worker_id text, status text, charged int)
  LANGUAGE sql VOLATILE
  SET search_path FROM CURRENT
  AS $$
  SELECT r.* FROM aq_end_lost_attempts(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.status = 'running' AND a.lease_expires_at < now()
    ORDER BY a.lease_expires_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), NULL, 'lease_expired', 'lease expired', 0, true) AS r
$$;

CREATE OR REPLACE FUNCTION aq_release_unknown_leases(p_worker text, p_held bigint[], p_granted_before timestamptz)
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

DROP FUNCTION aq_losses_in_chunk_order(bigint[]);
