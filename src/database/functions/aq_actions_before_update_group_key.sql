-- A key names its group for good, as lock_id does (004's update trigger
-- refuses a lock_id change; this one its string twin).
CREATE OR REPLACE FUNCTION aq_actions_before_update_group_key()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  RAISE EXCEPTION 'actions: group_key of action % cannot change', OLD.id USING ERRCODE = '23514';
END $function$;
