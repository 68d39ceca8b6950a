-- TRUNCATE actions empties every group: their lock rows and head records go
-- with them (actions_after_truncate).
CREATE OR REPLACE FUNCTION aq_actions_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  DELETE FROM action_group_heads;
  DELETE FROM action_group_locks;
  RETURN NULL;
END $function$;
