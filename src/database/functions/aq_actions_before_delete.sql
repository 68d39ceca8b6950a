-- A running action cannot be deleted: its holder would finish a row that is
-- gone and its group would move on while it still runs (G2, G3). Cancel it first.
CREATE OR REPLACE FUNCTION aq_actions_before_delete()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM aq_check_running_change(OLD, 'delete');
  RETURN OLD;
END $function$;
