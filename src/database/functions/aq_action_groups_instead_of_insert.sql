-- A lock row made through the view gets its record too (the rule above).
CREATE OR REPLACE FUNCTION aq_action_groups_instead_of_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  INSERT INTO action_group_locks (lock_id) VALUES (NEW.lock_id);
  INSERT INTO action_group_heads (lock_id, version, head_id, emptied) VALUES (NEW.lock_id, 1, 0, true);
  RETURN NEW;
END $function$;
