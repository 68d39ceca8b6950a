-- The lock id of `p_key`, interning it on first use. Concurrent first uses of
-- one key: the unique index makes the second INSERT wait for the first
-- transaction; when that commits, ON CONFLICT DO NOTHING and the next SELECT
-- (a fresh snapshot under READ COMMITTED) finds its row, so both use one lock
-- id; when it rolls back, the second inserts its own. Under REPEATABLE READ a
-- key committed after the snapshot raises a serialization failure instead.
CREATE OR REPLACE FUNCTION aq_intern_group_key(p_key text)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
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
END $function$;
