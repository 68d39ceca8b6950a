-- Operator SQL that row triggers do not see, or that they saw without waking
-- anyone (found by trying it: issue 9's kind, "no out-of-band change breaks a
-- group", and B5's, "a scheduled action starts on time whatever the poll").

-- TRUNCATE fires no row trigger: it would pass the guard on running actions
-- (004-group-order.up.sql) and leave action_groups.head_id pointing at rows
-- that are gone, so the group's next insert would never become its head.
-- Refused while any action runs under a live lease (the same rule, and the
-- same SQLSTATE, as a DELETE of one); TRUNCATE holds ACCESS EXCLUSIVE on
-- actions before this runs, so no claim can slip in between.
CREATE FUNCTION aq_actions_before_truncate() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  v_running actions;
BEGIN
  SELECT * INTO v_running FROM actions
  WHERE status = 'running' AND lease_expires_at >= now()
  ORDER BY id LIMIT 1;
  IF FOUND THEN
    PERFORM aq_check_running_change(v_running, 'truncate the table holding');
  END IF;
  RETURN NULL;
END $$;

-- Every group row goes with the actions: the next insert into a group then
-- creates its row again and becomes its head. No insert can run meanwhile
-- (ACCESS EXCLUSIVE until commit).
CREATE FUNCTION aq_actions_after_truncate() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM action_groups;
  RETURN NULL;
END $$;

CREATE TRIGGER actions_before_truncate BEFORE TRUNCATE ON actions
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_before_truncate();
CREATE TRIGGER actions_after_truncate AFTER TRUNCATE ON actions
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_truncate();

-- A head that becomes claimable, or claimable at another time, by an UPDATE
-- wakes the workers: an operator's `UPDATE ... SET run_at = now()`, a reset of
-- a failed head to pending, a release or a retry with backoff. A woken worker
-- that finds nothing due asks for the next run_at and sets its timer, so a
-- rescheduled action starts on time whatever WORKER_POLL_INTERVAL_MS.
-- Row level with a WHEN clause and a column list, so that the worker's claims
-- (status becomes running), completions (done, failed) and heartbeats (lease
-- columns only) never enter PL/pgSQL; identical notifications of one
-- transaction are folded into one by PostgreSQL.
CREATE FUNCTION aq_actions_after_update_wake() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq_wake_workers();
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_update_wake AFTER UPDATE OF status, run_at, is_head, quarantined ON actions
  FOR EACH ROW WHEN (
    NEW.status = 'pending' AND NEW.is_head
    AND (OLD.status <> 'pending' OR NOT OLD.is_head OR OLD.run_at IS DISTINCT FROM NEW.run_at
         OR OLD.quarantined IS DISTINCT FROM NEW.quarantined)
  )
  EXECUTE FUNCTION aq_actions_after_update_wake();
