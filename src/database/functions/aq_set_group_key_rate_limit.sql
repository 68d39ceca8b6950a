-- The same by string group key. A key not used yet is interned (017), so a
-- tenant can be limited before its first action; removing the limit of an
-- unknown key does nothing.
CREATE OR REPLACE FUNCTION aq_set_group_key_rate_limit(p_key text, p_per_second double precision, p_burst integer DEFAULT 1)
 RETURNS action_group_rate_limits
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$
  SELECT aq_set_group_rate_limit(
    CASE WHEN p_per_second IS NULL THEN (SELECT k.lock_id FROM action_group_keys AS k WHERE k.group_key = p_key)
         ELSE aq_intern_group_key(p_key) END,
    p_per_second, p_burst)
  WHERE p_per_second IS NOT NULL OR EXISTS (SELECT 1 FROM action_group_keys AS k WHERE k.group_key = p_key)
$function$;
