-- Resumes a tenant paused by aq_pause_tenant (053): true when it was paused
-- (a timed pause that had ended counts as not paused). The table's trigger
-- wakes the workers.
CREATE OR REPLACE FUNCTION aq_resume_tenant(p_tenant text)
 RETURNS boolean
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  WITH gone AS (
    DELETE FROM action_pauses WHERE scope = 'tenant' AND tenant = p_tenant
    RETURNING until
  )
  SELECT coalesce(bool_or(until IS NULL OR until > now()), false) FROM gone
$function$;
