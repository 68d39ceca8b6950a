-- Puts back the run_at of the head that group p_lock_id's bucket held back,
-- if it still has the run_at the bucket gave it: a new or no limit judges it
-- again at once. The UPDATE wakes the workers (010).
CREATE OR REPLACE FUNCTION aq_release_group_hold(p_lock_id bigint)
 RETURNS void
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  UPDATE actions AS a SET run_at = now()
  FROM action_group_rate_limits AS g
  WHERE g.lock_id = p_lock_id AND a.id = g.held_id AND a.run_at = g.held_until
    AND a.status = 'pending' AND a.is_head AND a.run_at > now()
$function$;
