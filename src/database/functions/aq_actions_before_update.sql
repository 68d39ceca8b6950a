-- Before an update that may change a row's hold on its group: id and lock_id
-- never change; a running row changes only as its lease allows
-- (aq_check_running_change); holds_group follows the status and the failure
-- policy, and a row that released its group never holds it again (G3).
-- 052: the tenant never changes either (the group's one tenant is checked
-- at insert only; aq_actions_before_insert): the trigger
-- actions_before_update_tenant calls this function for a change of it.
CREATE OR REPLACE FUNCTION aq_actions_before_update()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  IF NEW.id <> OLD.id OR NEW.lock_id IS DISTINCT FROM OLD.lock_id THEN
    RAISE EXCEPTION 'actions: id and lock_id of action % cannot change', OLD.id USING ERRCODE = '23514';
  END IF;
  IF NEW.tenant <> OLD.tenant THEN
    RAISE EXCEPTION 'actions: the tenant of action % cannot change (it is "%")', OLD.id, OLD.tenant USING ERRCODE = '23514';
  END IF;
  IF OLD.status = 'running' AND (NEW.status <> 'running' OR NEW.lease_owner IS DISTINCT FROM OLD.lease_owner
                                 OR NEW.lease_expires_at < OLD.lease_expires_at) THEN
    PERFORM aq_check_running_change(OLD, 'change');
  END IF;
  NEW.holds_group := aq_holds_group(NEW.status, NEW.on_failure);
  IF NEW.holds_group AND NOT OLD.holds_group THEN
    RAISE EXCEPTION 'actions: action % is % and cannot become % again', OLD.id, OLD.status, NEW.status
      USING ERRCODE = '23514';
  END IF;
  IF NOT NEW.holds_group THEN
    NEW.is_head := false;
  END IF;
  RETURN NEW;
END $function$;
