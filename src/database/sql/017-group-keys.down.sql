-- Back to integer lock ids only. Refused while any action carries a string
-- key: its group would lose its name (its lock id stays in the reserved range).
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM actions WHERE group_key IS NOT NULL) THEN
    RAISE EXCEPTION 'actions: % actions carry a group_key; delete them (or wait for retention) before reverting 017-group-keys',
      (SELECT count(*) FROM actions WHERE group_key IS NOT NULL);
  END IF;
END $$;

DROP TRIGGER IF EXISTS actions_before_update_group_key ON actions;
DROP FUNCTION IF EXISTS aq_actions_before_update_group_key();

-- 004-group-order's insert trigger function, as released.
CREATE OR REPLACE FUNCTION aq_actions_before_insert() RETURNS trigger
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

DROP FUNCTION IF EXISTS aq_intern_group_key(text);
ALTER TABLE actions DROP COLUMN IF EXISTS group_key;
DROP TABLE IF EXISTS action_group_keys;
DROP SEQUENCE IF EXISTS action_group_keys_lock_id_seq;
