-- Group order (G3) and commit order (G4) for every writer, SQL producers included
-- (G5). Invariants kept by the triggers below:
-- - A row holds its group while pending, running, or failed under `block`
--   (holds_group); terminal rows never hold it again.
-- - The holding row with the smallest id is the head (is_head), the only one of
--   its group that may be claimed; rows without a lock id are always heads.
-- - action_groups.head_id mirrors the head; every change writes the group row, so
--   a REPEATABLE READ producer with a stale view gets a serialization error.
-- - Ids are taken under the group lock: within a group, id order is commit order.
-- - Only its lease owner may end, delete or cut short the lease of a running
--   action while the lease is live, so no out-of-band SQL lets the next action of
--   its group start under it. Promotion is in 005-promotion.up.sql.

CREATE FUNCTION aq_holds_group(status text, on_failure text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT status IN ('pending', 'running') OR (status = 'failed' AND on_failure = 'block') $$;

-- This transaction acts for worker p_worker: it may end p_worker's running
-- actions (the guard below), and when it releases a group, the group's next
-- head is handed to p_worker if it can run it (p_lease_ms > 0 and its type in
-- p_types, capped by p_caps; see aq_promote_groups). Transaction-local.
CREATE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE sql VOLATILE AS $$
  SELECT set_config('aq.worker', p_worker, true),
         set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
         set_config('aq.handoff_types', p_types::text, true),
         set_config('aq.handoff_caps', p_caps::text, true)
$$;

-- Locks the group row, creating it on first use, and returns its head id.
-- A row lock, not an advisory lock: a batch touching 20 000 groups would
-- exhaust the shared lock table with advisory locks. It loops because
-- retention deletes empty group rows: an INSERT that met a row another
-- transaction had just committed, deleted again before the SELECT, would
-- otherwise go on without any group lock. It returns only with a locked row.
-- (In REPEATABLE READ a row committed after the snapshot makes the INSERT
-- raise a serialization failure instead of looping.)
CREATE FUNCTION aq_lock_group(p_lock_id bigint) RETURNS bigint
  LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_head bigint;
BEGIN
  LOOP
    SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
    IF FOUND THEN
      RETURN v_head;
    END IF;
    INSERT INTO action_groups (lock_id) VALUES (p_lock_id) ON CONFLICT DO NOTHING;
  END LOOP;
END $$;

CREATE FUNCTION aq_actions_before_insert() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
BEGIN
  IF NEW.status <> 'pending' THEN
    RAISE EXCEPTION 'actions: a new action must be pending, not %', NEW.status USING ERRCODE = '23514';
  END IF;
  NEW.attempts := 0;
  NEW.charged_attempts := 0;
  NEW.holds_group := true;
  NEW.lease_owner := NULL;
  NEW.lease_expires_at := NULL;
  NEW.attempt_started_at := NULL;
  NEW.started_at := NULL;
  NEW.finished_at := NULL;
  NEW.cancel_requested_at := NULL;
  NEW.quarantined := false;
  NEW.uncharged_losses := 0;
  IF NEW.lock_id IS NULL THEN
    NEW.id := nextval('actions_id_seq');
    NEW.is_head := true;
    RETURN NEW;
  END IF;
  v_head := aq_lock_group(NEW.lock_id);
  -- The id is taken only now, under the group lock (G4, DESIGN.md trap 4).
  NEW.id := nextval('actions_id_seq');
  -- The probe sees rows inserted earlier by this same statement, which head_id
  -- does not show yet (an AFTER trigger sets it, so that a row skipped by
  -- ON CONFLICT DO NOTHING never becomes a head).
  NEW.is_head := v_head IS NULL AND NOT EXISTS (
    SELECT 1 FROM actions WHERE lock_id = NEW.lock_id AND holds_group AND lock_id IS NOT NULL
  );
  RETURN NEW;
END $$;

CREATE FUNCTION aq_actions_after_insert_head() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  UPDATE action_groups SET head_id = NEW.id WHERE lock_id = NEW.lock_id;
  RETURN NULL;
END $$;

-- Raises unless the current transaction may end or cut short the lease of
-- running action p_old: it acts for the lease owner, or the lease has expired.
CREATE FUNCTION aq_check_running_change(p_old actions, p_verb text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  IF p_old.lease_expires_at >= now() AND p_old.lease_owner IS DISTINCT FROM current_setting('aq.worker', true) THEN
    RAISE EXCEPTION 'actions: cannot % action %: it is running (worker %, lease until %)', p_verb, p_old.id,
      p_old.lease_owner, p_old.lease_expires_at
      USING ERRCODE = '55006',
            HINT = format('Ask its holder to stop: POST /actions/%s/cancel, or UPDATE actions SET '
                          'cancel_requested_at = now() WHERE id = %s. It ends cancelled once the handler '
                          'has stopped or its lease has expired.', p_old.id, p_old.id);
  END IF;
END $$;

CREATE FUNCTION aq_actions_before_update() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.lock_id IS DISTINCT FROM OLD.lock_id THEN
    RAISE EXCEPTION 'actions: id and lock_id of action % cannot change', OLD.id USING ERRCODE = '23514';
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
END $$;

CREATE FUNCTION aq_actions_before_delete() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq_check_running_change(OLD, 'delete');
  RETURN OLD;
END $$;

CREATE TRIGGER actions_before_insert BEFORE INSERT ON actions
  FOR EACH ROW EXECUTE FUNCTION aq_actions_before_insert();
CREATE TRIGGER actions_after_insert_head AFTER INSERT ON actions
  FOR EACH ROW WHEN (NEW.is_head AND NEW.lock_id IS NOT NULL)
  EXECUTE FUNCTION aq_actions_after_insert_head();
-- Fires only when the row's hold on its group may change, a key column is
-- touched, or a running action is ended or its lease cut short: claims,
-- heartbeats and promotions skip PL/pgSQL.
CREATE TRIGGER actions_before_update BEFORE UPDATE ON actions
  FOR EACH ROW WHEN (
    OLD.id <> NEW.id
    OR OLD.lock_id IS DISTINCT FROM NEW.lock_id
    OR OLD.holds_group IS DISTINCT FROM NEW.holds_group
    OR OLD.holds_group IS DISTINCT FROM (NEW.status IN ('pending', 'running') OR (NEW.status = 'failed' AND NEW.on_failure = 'block'))
    OR (OLD.status = 'running' AND (NEW.status <> 'running' OR NEW.lease_owner IS DISTINCT FROM OLD.lease_owner
                                    OR NEW.lease_expires_at < OLD.lease_expires_at))
  )
  EXECUTE FUNCTION aq_actions_before_update();
CREATE TRIGGER actions_before_delete BEFORE DELETE ON actions
  FOR EACH ROW WHEN (OLD.status = 'running')
  EXECUTE FUNCTION aq_actions_before_delete();
