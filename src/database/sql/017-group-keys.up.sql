-- First-class string group keys (issue 19, fault 5). A producer may name its
-- group with a string (`group_key`: a UUID, `tenant:42`, an SQS
-- MessageGroupId) instead of an integer lock id. The database interns each
-- distinct key once, in action_group_keys, and gives it a lock id of its own,
-- so two different keys never share a group (a hash would: the 31-bit string
-- hash of the old embedded-app recipe put "Aa" and "BB" in one group).
--
-- Why interned lock ids, not a second group column: every group rule (the
-- insert trigger, promotion, finishing, the reaper, retention, the admin
-- reads) keys on actions.lock_id and action_groups.lock_id. A string-keyed
-- action therefore stores its interned lock id in lock_id and runs through
-- exactly the same, already proven, code; group_key only names it.
--
-- Why a reserved range: integer lock ids use the whole signed 64-bit range, so
-- interned ids need a range of their own. They come from a dedicated sequence
-- over the lowest 2^48 values of bigint, [-2^63, -2^63 + 2^48): 2.8e14 keys
-- (890 years at 10 000 new keys/s), and a random 64-bit integer lands there
-- with probability 2^-16. An integer lock id in that range without a
-- group_key is refused (SQLSTATE 23514), so no integer group can ever meet a
-- string group. Integer lock ids outside it behave exactly as before.
--
-- Cost on the hot path: an integer or ungrouped insert pays the WHEN clause of
-- actions_before_group_key (two comparisons, no PL/pgSQL); only a row with
-- group_key does the interning (one primary-key probe on action_group_keys
-- when the key exists, an insert when it is new).
--
-- Retention: interned keys are kept when retention removes an empty group's
-- action_groups row (one small row per distinct key ever used). Deleting a key
-- row safely would need every insert to lock it until commit (an insert that
-- resolved the key but has not locked its group yet would otherwise meet a
-- second, newly interned lock id for the same key: two groups for one key).

-- Interned ids, lowest first. -9223090561878065153 = -2^63 + 2^48 - 1.
CREATE SEQUENCE action_group_keys_lock_id_seq AS bigint
  MINVALUE -9223372036854775808 MAXVALUE -9223090561878065153 START WITH -9223372036854775808 NO CYCLE;

-- One row per distinct string key ever used. Keys compare byte for byte
-- (COLLATE "C": case-sensitive, no Unicode normalisation).
CREATE TABLE action_group_keys (
  group_key text COLLATE "C" NOT NULL,
  -- Drawn by aq_intern_group_key (no column default, as actions.id).
  lock_id   bigint NOT NULL,
  CONSTRAINT action_group_keys_pkey PRIMARY KEY (group_key),
  CONSTRAINT action_group_keys_lock_id_uq UNIQUE (lock_id),
  -- 255 bytes of UTF-8 (README, "String group keys"); PostgreSQL text holds no NUL.
  CONSTRAINT action_group_keys_group_key_length CHECK (octet_length(group_key) BETWEEN 1 AND 255),
  CONSTRAINT action_group_keys_lock_id_reserved CHECK (lock_id <= -9223090561878065153)
);
ALTER SEQUENCE action_group_keys_lock_id_seq OWNED BY action_group_keys.lock_id;

-- The key an action was enqueued with, or NULL (an integer group or none).
-- Nullable without a default: adding it rewrites nothing. Every non-NULL value
-- is a row of action_group_keys (the insert trigger interns it; its length is
-- checked there), and it never changes (actions_before_update_group_key).
ALTER TABLE actions ADD COLUMN group_key text COLLATE "C";

-- The lock id of `p_key`, interning it on first use. Concurrent first uses of
-- one key: the unique index makes the second INSERT wait for the first
-- transaction; when that commits, ON CONFLICT DO NOTHING and the next SELECT
-- (a fresh snapshot under READ COMMITTED) finds its row, so both use one lock
-- id; when it rolls back, the second inserts its own. Under REPEATABLE READ a
-- key committed after the snapshot raises a serialization failure instead.
CREATE FUNCTION aq_intern_group_key(p_key text) RETURNS bigint
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_lock_id bigint;
BEGIN
  LOOP
    SELECT lock_id INTO v_lock_id FROM action_group_keys WHERE group_key = p_key;
    IF FOUND THEN
      RETURN v_lock_id;
    END IF;
    INSERT INTO action_group_keys (group_key, lock_id) VALUES (p_key, nextval('action_group_keys_lock_id_seq'))
      ON CONFLICT (group_key) DO NOTHING
      RETURNING lock_id INTO v_lock_id;
    IF v_lock_id IS NOT NULL THEN
      RETURN v_lock_id;
    END IF;
  END LOOP;
END $$;

-- Resolves a row's group key before 004-group-order's insert trigger runs:
-- fills lock_id with the key's interned lock id, or refuses an integer lock id
-- from the reserved range. 004's trigger then locks the group, takes the id
-- under the lock and sets the head exactly as for an integer group, so a
-- string-keyed group keeps G3 and G4 unchanged.
CREATE FUNCTION aq_actions_before_group_key() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  v_key_lock_id bigint;
BEGIN
  IF NEW.group_key IS NULL THEN
    RAISE EXCEPTION 'actions: lock_id % is reserved for string group keys (lock ids up to -9223090561878065153); use group_key, or another lock_id', NEW.lock_id
      USING ERRCODE = '23514';
  END IF;
  -- The common case, a key seen before, without a second function call.
  SELECT lock_id INTO v_key_lock_id FROM action_group_keys WHERE group_key = NEW.group_key;
  IF NOT FOUND THEN
    v_key_lock_id := aq_intern_group_key(NEW.group_key);
  END IF;
  -- Both may be given only when they agree (a copy of an existing row; the API names both).
  IF NEW.lock_id IS NOT NULL AND NEW.lock_id <> v_key_lock_id THEN
    RAISE EXCEPTION 'actions: give group_key or lock_id, not both (group_key % is lock_id %, not %)',
      NEW.group_key, v_key_lock_id, NEW.lock_id USING ERRCODE = '23514';
  END IF;
  NEW.lock_id := v_key_lock_id;
  RETURN NEW;
END $$;

-- A trigger of its own rather than a new version of aq_actions_before_insert,
-- so that an integer or ungrouped insert does not run any of it: the WHEN
-- clause is evaluated without entering PL/pgSQL. PostgreSQL fires triggers of
-- one event in name order, so this one ("actions_before_group_key") runs
-- before "actions_before_insert" (004), which needs lock_id set.
CREATE TRIGGER actions_before_group_key BEFORE INSERT ON actions
  FOR EACH ROW WHEN (NEW.group_key IS NOT NULL OR NEW.lock_id <= -9223090561878065153)
  EXECUTE FUNCTION aq_actions_before_group_key();

-- A key names its group for good, as lock_id does (004's update trigger
-- refuses a lock_id change; this one its string twin).
CREATE FUNCTION aq_actions_before_update_group_key() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  RAISE EXCEPTION 'actions: group_key of action % cannot change', OLD.id USING ERRCODE = '23514';
END $$;

-- Fires only for an UPDATE that names group_key and changes it: claims,
-- heartbeats and completions never do.
CREATE TRIGGER actions_before_update_group_key BEFORE UPDATE OF group_key ON actions
  FOR EACH ROW WHEN (OLD.group_key IS DISTINCT FROM NEW.group_key)
  EXECUTE FUNCTION aq_actions_before_update_group_key();
