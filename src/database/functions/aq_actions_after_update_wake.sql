-- A head that becomes claimable, or claimable at another time, by an UPDATE
-- wakes the workers: an operator's `UPDATE ... SET run_at = now()`, a reset of
-- a failed head to pending, a release or a retry with backoff. A woken worker
-- that finds nothing due asks for the next run_at and sets its timer, so a
-- rescheduled action starts on time whatever WORKER_POLL_INTERVAL_MS.
-- Row level with a WHEN clause and a column list, so that the worker's claims
-- (status becomes running), completions (done, failed) and heartbeats (lease
-- columns only) never enter PL/pgSQL; identical notifications of one
-- transaction are folded into one by PostgreSQL.
CREATE OR REPLACE FUNCTION aq_actions_after_update_wake()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  PERFORM aq_wake_workers();
  RETURN NULL;
END $function$;
