-- Resolves a row's group key before 004-group-order's insert trigger runs:
-- fills lock_id with the key's interned lock id, or refuses an integer lock id
-- from the reserved range. 004's trigger then locks the group, takes the id
-- under the lock and sets the head exactly as for an integer group, so a
-- string-keyed group keeps G3 and G4 unchanged.
CREATE OR REPLACE FUNCTION aq_actions_before_group_key()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
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
END $function$;
