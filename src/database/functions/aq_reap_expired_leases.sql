-- 008's reaper, its selection passed through the rule. The rows left out
-- stay locked, unchanged, until the commit.
CREATE OR REPLACE FUNCTION aq_reap_expired_leases(p_limit integer)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  SELECT r.* FROM aq_end_lost_attempts(aq_losses_in_chunk_order(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.status = 'running' AND a.lease_expires_at < now()
    ORDER BY a.lease_expires_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  )), NULL, 'lease_expired', 'lease expired', 0, true) AS r
$function$;
