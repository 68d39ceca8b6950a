-- Cancel reaches the running handler at once: a cancellation request on a
-- running action (POST /actions/:id/cancel, or an operator's
-- `UPDATE actions SET cancel_requested_at = now()`) notifies the workers on
-- the channel 'actions_cancel' with the action id as payload. The holder
-- (the worker whose lease it is; the others ignore the id) runs a heartbeat
-- at once, which reports the request and aborts the handler; its regular
-- heartbeat (every LEASE_MS/3) stays the fallback for a lost notification.
-- The channel name lives here and in ACTIONS_CANCEL_CHANNEL
-- (src/queue/wake/notification-listener.service.ts); keep the two equal.
-- Row level with a WHEN clause and a column list, so that no statement of the
-- hot path (claims, heartbeats, completions) enters PL/pgSQL.
CREATE OR REPLACE FUNCTION aq_actions_after_cancel_request()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM pg_notify('actions_cancel', NEW.id::text);
  RETURN NULL;
END $function$;
