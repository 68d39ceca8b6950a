-- Wake-up: workers LISTEN on one channel and claim when notified; a poll
-- (WORKER_POLL_INTERVAL_MS) is only the safety net for a lost notification.
-- The channel name lives here and in ACTIONS_READY_CHANNEL
-- (src/queue/wake/notification-listener.service.ts); keep the two equal.

-- Tells every listening worker that a head may have become claimable (now, or
-- at a future run_at: a woken worker that claims nothing asks for the next
-- due time and sets a timer). Identical notifications of one transaction are
-- folded into one by PostgreSQL, so calling this per row costs nothing extra.
CREATE OR REPLACE FUNCTION aq_wake_workers()
 RETURNS void
 LANGUAGE sql
 SET search_path FROM CURRENT
AS $function$ SELECT pg_notify('actions_ready', '') $function$;
