-- Makes p_head the head record of group p_lock_id (the caller holding its
-- lock): the newest record, version + 1. In
-- REPEATABLE READ or SERIALIZABLE a record another transaction wrote after
-- the snapshot makes this raise 40001 (header). Every eighth version deletes
-- the eight before it (header, point 2). Two statements, no array: what a
-- promotion of one group uses (the insert trigger has the same inline; 21 µs
-- a call here against 145 µs for the set-based form below with an array of
-- one, which PL/pgSQL re-planned at every call).
CREATE OR REPLACE FUNCTION aq_set_group_head(p_lock_id bigint, p_head bigint)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_version bigint;
  v_written int;
BEGIN
  SELECT h.version INTO v_version FROM action_group_heads AS h WHERE h.lock_id = p_lock_id ORDER BY h.version DESC LIMIT 1;
  v_version := coalesce(v_version, 0) + 1;
  INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (p_lock_id, v_version, p_head)
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_written = ROW_COUNT;
  IF v_written = 0 THEN
    -- READ COMMITTED under the group lock: no other writer can have taken the key.
    RAISE EXCEPTION 'actions: the head record of group % changed under its lock', p_lock_id USING ERRCODE = '40001';
  END IF;
  IF v_version % 8 = 0 THEN
    DELETE FROM action_group_heads AS h WHERE h.lock_id = p_lock_id AND h.version >= v_version - 8 AND h.version < v_version;
  END IF;
END $function$;
