-- The trace of a cancelled action says `cancelled` also when its handler did
-- not stop and the reaper ended the attempt once its lease expired
-- (aq_end_lost_attempts records `lease_expired` and sets the action
-- `cancelled`). A trigger on the trace rather than a new version of that
-- function: only lease_expired rows enter PL/pgSQL (the WHEN clause), never a
-- completion of the hot path.
CREATE OR REPLACE FUNCTION aq_action_attempts_before_insert_cancelled()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  IF EXISTS (SELECT 1 FROM actions AS a WHERE a.id = NEW.action_id AND a.cancel_requested_at IS NOT NULL) THEN
    NEW.outcome := 'cancelled';
    NEW.error := 'cancelled: the handler did not stop; its lease expired';
  END IF;
  RETURN NEW;
END $function$;
