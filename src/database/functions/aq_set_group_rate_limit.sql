-- Sets (or with NULL p_per_second removes) group p_lock_id's limit:
-- p_per_second starts a second, at most p_burst at once after a quiet spell.
-- A new limit starts with a full bucket; a changed one keeps its tokens (up to
-- the new burst). Returns the row, NULL when removed. Raises 22023 on a bad
-- value. SQL path for psql:
--   SELECT aq_set_group_rate_limit(42, 5, 1);     SELECT aq_set_group_rate_limit(42, NULL);
--   SELECT aq_set_group_key_rate_limit('tenant:42', 5, 1);
CREATE OR REPLACE FUNCTION aq_set_group_rate_limit(p_lock_id bigint, p_per_second double precision, p_burst integer DEFAULT 1)
 RETURNS action_group_rate_limits
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_row action_group_rate_limits;
BEGIN
  IF p_lock_id IS NULL THEN
    RAISE EXCEPTION 'actions: a group rate limit needs a lock id' USING ERRCODE = '22023';
  END IF;
  -- As aq_pause (030): a lock id of the range reserved for string group keys
  -- names a group only once a key was interned under it (the by-key function
  -- interns first). The handler below lets this one through unchanged.
  IF p_lock_id <= -9223090561878065153 AND NOT EXISTS (SELECT 1 FROM action_group_keys WHERE lock_id = p_lock_id) THEN
    RAISE EXCEPTION 'actions: lock_id % is reserved for string group keys (lock ids up to -9223090561878065153); limit by group key (aq_set_group_key_rate_limit), or another lock_id', p_lock_id
      USING ERRCODE = '23514';
  END IF;
  -- The group's pending head, then its bucket: the order a claim locks them
  -- in (no deadlock), and a claim that is holding the head back has
  -- committed before the next statement reads held_id / held_until.
  PERFORM 1 FROM actions AS a
  WHERE a.lock_id = p_lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.is_head AND a.status = 'pending' FOR UPDATE;
  PERFORM 1 FROM action_group_rate_limits AS g WHERE g.lock_id = p_lock_id FOR UPDATE;
  PERFORM aq_release_group_hold(p_lock_id);
  IF p_per_second IS NULL THEN
    DELETE FROM action_group_rate_limits WHERE lock_id = p_lock_id;
    RETURN NULL;
  END IF;
  INSERT INTO action_group_rate_limits AS g (lock_id, per_second, burst, tokens)
  VALUES (p_lock_id, p_per_second, coalesce(p_burst, 1), coalesce(p_burst, 1))
  ON CONFLICT (lock_id) DO UPDATE
    SET per_second = excluded.per_second,
        burst      = excluded.burst,
        tokens     = least(g.tokens, excluded.burst),
        held_id    = NULL,
        held_until = NULL,
        updated_at = now()
  RETURNING * INTO v_row;
  RETURN v_row;
EXCEPTION WHEN check_violation THEN
  IF SQLERRM LIKE 'actions: lock_id % is reserved for string group keys%' THEN
    RAISE;
  END IF;
  RAISE EXCEPTION 'actions: invalid rate limit for group %: % per second, burst %', p_lock_id, p_per_second, p_burst USING ERRCODE = '22023';
END $function$;
