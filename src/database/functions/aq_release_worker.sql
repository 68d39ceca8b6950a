-- Ends every running attempt of worker p_worker at once, when its instance
-- must go down (see aq_end_lost_attempts for p_culprit and p_delay_ms).
CREATE OR REPLACE FUNCTION aq_release_worker(p_worker text, p_culprit bigint, p_reason text, p_delay_ms integer)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM aq_act_for_worker(p_worker, 0, '{}', '{}');
  RETURN QUERY SELECT * FROM aq_end_lost_attempts(ARRAY(
    SELECT a.id FROM actions AS a WHERE a.status = 'running' AND a.lease_owner = p_worker
  ), p_culprit, 'released', p_reason, p_delay_ms, false);
END $function$;
