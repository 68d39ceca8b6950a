-- Wake-up: workers LISTEN on one channel and claim when notified; a poll
-- (WORKER_POLL_INTERVAL_MS) is only the safety net for a lost notification.
-- The channel name lives here and in ACTIONS_READY_CHANNEL
-- (src/queue/notification-listener.service.ts); keep the two equal.

-- Tells every listening worker that a head may have become claimable (now, or
-- at a future run_at: a woken worker that claims nothing asks for the next
-- due time and sets a timer). Identical notifications of one transaction are
-- folded into one by PostgreSQL, so calling this per row costs nothing extra.
CREATE FUNCTION aq_wake_workers() RETURNS void
  LANGUAGE sql VOLATILE
  AS $$ SELECT pg_notify('actions_ready', '') $$;

-- Statement level: one call per INSERT statement, however many rows.
CREATE FUNCTION aq_actions_after_insert_wake() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq_wake_workers();
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_insert_wake AFTER INSERT ON actions
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_insert_wake();
