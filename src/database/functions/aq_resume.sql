-- Resumes one target; true when it was paused. The statement trigger below
-- wakes the workers.
CREATE OR REPLACE FUNCTION aq_resume(p_scope text, p_type text, p_lock_id bigint)
 RETURNS boolean
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  WITH gone AS (
    DELETE FROM action_pauses
    WHERE scope = p_scope AND type IS NOT DISTINCT FROM p_type AND lock_id IS NOT DISTINCT FROM p_lock_id
    RETURNING until
  )
  SELECT coalesce(bool_or(until IS NULL OR until > now()), false) FROM gone
$function$;
