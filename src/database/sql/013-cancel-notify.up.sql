-- Cancel reaches the running handler at once: a cancellation request on a
-- running action (POST /actions/:id/cancel, or an operator's
-- `UPDATE actions SET cancel_requested_at = now()`) notifies the workers on
-- the channel 'actions_cancel' with the action id as payload. The holder
-- (the worker whose lease it is; the others ignore the id) runs a heartbeat
-- at once, which reports the request and aborts the handler; its regular
-- heartbeat (every LEASE_MS/3) stays the fallback for a lost notification.
-- The channel name lives here and in ACTIONS_CANCEL_CHANNEL
-- (src/queue/notification-listener.service.ts); keep the two equal.
-- Row level with a WHEN clause and a column list, so that no statement of the
-- hot path (claims, heartbeats, completions) enters PL/pgSQL.
CREATE FUNCTION aq_actions_after_cancel_request() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM pg_notify('actions_cancel', NEW.id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_cancel_request AFTER UPDATE OF cancel_requested_at ON actions
  FOR EACH ROW WHEN (NEW.status = 'running' AND NEW.cancel_requested_at IS NOT NULL AND OLD.cancel_requested_at IS NULL)
  EXECUTE FUNCTION aq_actions_after_cancel_request();

-- The trace of a cancelled action says `cancelled` also when its handler did
-- not stop and the reaper ended the attempt once its lease expired
-- (aq_end_lost_attempts records `lease_expired` and sets the action
-- `cancelled`). A trigger on the trace rather than a new version of that
-- function: only lease_expired rows enter PL/pgSQL (the WHEN clause), never a
-- completion of the hot path.
CREATE FUNCTION aq_action_attempts_before_insert_cancelled() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM actions AS a WHERE a.id = NEW.action_id AND a.cancel_requested_at IS NOT NULL) THEN
    NEW.outcome := 'cancelled';
    NEW.error := 'cancelled: the handler did not stop; its lease expired';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER action_attempts_before_insert_cancelled BEFORE INSERT ON action_attempts
  FOR EACH ROW WHEN (NEW.outcome = 'lease_expired')
  EXECUTE FUNCTION aq_action_attempts_before_insert_cancelled();
