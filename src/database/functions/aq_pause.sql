-- Pauses one target (p_scope 'queue', 'type' with p_type, 'group' with
-- p_lock_id), for p_for_ms milliseconds or, when NULL, until resumed. Pausing
-- a paused target again keeps one row: the longer of the two pauses wins (an
-- open-ended one over any timed one) and a new reason replaces the old.
-- Returns the row. Raises 22023 on a bad argument, 23514 for a lock id
-- reserved for string group keys that no key was interned under.
CREATE OR REPLACE FUNCTION aq_pause(p_scope text, p_type text, p_lock_id bigint, p_reason text DEFAULT NULL::text, p_for_ms bigint DEFAULT NULL::bigint)
 RETURNS action_pauses
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_until timestamptz := CASE WHEN p_for_ms IS NULL THEN NULL ELSE now() + p_for_ms * interval '1 millisecond' END;
  v_row   action_pauses;
BEGIN
  IF p_for_ms IS NOT NULL AND p_for_ms <= 0 THEN
    RAISE EXCEPTION 'actions: a timed pause needs p_for_ms > 0 (got %)', p_for_ms USING ERRCODE = '22023';
  END IF;
  -- A lock id of the range reserved for string group keys (017) names a group
  -- only once a key was interned under it (aq_pause_group_key does that first):
  -- refused otherwise, as the insert refuses it (017's trigger, 23514).
  IF p_lock_id <= -9223090561878065153 AND NOT EXISTS (SELECT 1 FROM action_group_keys WHERE lock_id = p_lock_id) THEN
    RAISE EXCEPTION 'actions: lock_id % is reserved for string group keys (lock ids up to -9223090561878065153); pause by group key (aq_pause_group_key), or another lock_id', p_lock_id
      USING ERRCODE = '23514';
  END IF;
  -- Expired timed pauses of this scope are garbage: drop them so a new pause starts afresh.
  DELETE FROM action_pauses WHERE scope = p_scope AND until IS NOT NULL AND until <= now();
  INSERT INTO action_pauses AS p (scope, type, lock_id, reason, until)
  VALUES (p_scope, p_type, p_lock_id, p_reason, v_until)
  ON CONFLICT DO NOTHING
  RETURNING * INTO v_row;
  IF v_row.id IS NULL THEN
    UPDATE action_pauses AS p
    SET reason = coalesce(p_reason, p.reason),
        until  = CASE WHEN p.until IS NULL OR v_until IS NULL THEN NULL ELSE greatest(p.until, v_until) END
    WHERE p.scope = p_scope AND p.type IS NOT DISTINCT FROM p_type AND p.lock_id IS NOT DISTINCT FROM p_lock_id
    RETURNING * INTO v_row;
  END IF;
  RETURN v_row;
EXCEPTION WHEN check_violation THEN
  -- The reserved-range refusal above keeps its own SQLSTATE and message.
  IF SQLERRM LIKE 'actions: lock_id % is reserved for string group keys%' THEN
    RAISE;
  END IF;
  RAISE EXCEPTION 'actions: cannot pause scope % (type %, lock_id %): %', p_scope, p_type, p_lock_id, SQLERRM USING ERRCODE = '22023';
END $function$;
