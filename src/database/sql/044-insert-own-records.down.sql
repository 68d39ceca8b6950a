-- Back to 043's insert trigger, which is 039's: the group lock before every head read.

CREATE OR REPLACE FUNCTION aq_actions_before_insert() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_head     bigint;
  v_recorded bigint;
  v_version  bigint;
  v_emptied  boolean;
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
  -- The group's lock row, created on first use; loops because retention
  -- deletes empty groups' rows (004). Inline, not 038's aq_lock_group: a call
  -- with its SET clause cost a tenth of a bulk INSERT ... SELECT.
  LOOP
    PERFORM 1 FROM action_group_locks WHERE lock_id = NEW.lock_id FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO action_group_locks (lock_id) VALUES (NEW.lock_id) ON CONFLICT DO NOTHING;
  END LOOP;
  -- Read after the lock (a statement of its own, so READ COMMITTED sees what
  -- the previous holder committed): the newest record, and whether its head
  -- holds the group.
  SELECT r.head_id, r.version, r.emptied, a.id INTO v_recorded, v_version, v_emptied, v_head
  FROM (SELECT h.head_id, h.version, h.emptied FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id ORDER BY h.version DESC LIMIT 1) AS r
  LEFT JOIN actions AS a ON a.id = r.head_id AND a.holds_group;
  -- (No record at all: a lock row this statement just made, an empty group.)
  IF v_head IS NULL AND v_emptied IS FALSE THEN
    -- The recorded head no longer holds, and no promotion has marked its
    -- group emptied: a release earlier in this same statement may have left
    -- an action queued behind it for the statement's end to promote (a CTE
    -- that cancels the head and inserts, a MERGE), or the record names a
    -- row ON CONFLICT skipped. The first holding action after the recorded
    -- head: a walk of a few index entries, since it is the group's latest.
    SELECT a.id INTO v_head FROM actions AS a
    WHERE a.lock_id = NEW.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > v_recorded
    ORDER BY a.lock_id, a.id LIMIT 1;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    PERFORM aq_check_group_unchanged(NEW.lock_id, v_version);
  END IF;
  -- The id is taken only now, under the group lock (G4, DESIGN.md trap 4).
  NEW.id := nextval('actions_id_seq');
  NEW.is_head := v_head IS NULL;
  IF NEW.is_head THEN
    -- Written before the row (header, point 4): a later row of this statement
    -- reads it, and a row that ends up not inserted leaves a record naming an
    -- id that holds nothing, which means "no head". aq_set_group_head inline,
    -- with the version read above.
    v_version := coalesce(v_version, 0) + 1;
    INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (NEW.lock_id, v_version, NEW.id)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'actions: the head record of group % changed under its lock', NEW.lock_id USING ERRCODE = '40001';
    END IF;
    IF v_version % 8 = 0 THEN
      DELETE FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id AND h.version >= v_version - 8 AND h.version < v_version;
    END IF;
  END IF;
  RETURN NEW;
END $$;

