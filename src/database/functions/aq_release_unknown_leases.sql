-- 012's release of unknown leases, its selection passed through the rule.
CREATE OR REPLACE FUNCTION aq_release_unknown_leases(p_worker text, p_held bigint[], p_granted_before timestamp with time zone)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM aq_act_for_worker(p_worker, 0, '{}', '{}');
  RETURN QUERY SELECT * FROM aq_end_lost_attempts(aq_losses_in_chunk_order(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.status = 'running' AND a.lease_owner = p_worker AND a.id <> ALL(p_held)
      AND a.attempt_started_at < p_granted_before AND a.lease_expires_at >= now()
    FOR UPDATE SKIP LOCKED
  )), 0, 'released', 'lease granted by a statement whose answer never arrived', 0, false);
END $function$;
