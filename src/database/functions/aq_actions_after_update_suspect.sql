-- A suspect is woken by a notification, not found by the next poll.
-- Workers claim suspects (quarantined heads, 011-lost-attempts-in-parallel)
-- only through their SuspectRunner, which asked the database once per poll
-- (WORKER_POLL_INTERVAL_MS); the ordinary wake-up never claims one. Now a head
-- that becomes a claimable suspect (reaped for the second time in a row by
-- aq_end_lost_attempts, charged as the watchdog's culprit, or made head or
-- pending again with `quarantined` set) notifies 'actions_ready' with the
-- payload 'suspect': every listening worker lets its SuspectRunner ask at once
-- (src/queue/wake/notification-listener.service.ts, SUSPECT_DUE_PAYLOAD; keep the
-- two equal). A suspect whose run_at lies ahead is found by the woken worker's
-- next-due timer (aq_next_due).
-- Row level with a WHEN clause and a column list, as the other wake-up
-- triggers: claims, heartbeats and completions never enter PL/pgSQL, and
-- PostgreSQL folds identical notifications of one transaction into one.
CREATE OR REPLACE FUNCTION aq_actions_after_update_suspect()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM pg_notify('actions_ready', 'suspect');
  RETURN NULL;
END $function$;
