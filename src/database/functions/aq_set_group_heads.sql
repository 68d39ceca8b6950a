-- aq_set_group_head for many groups in one statement (the promotion of a
-- finishing batch): p_heads[i] becomes the head of p_locks[i], the caller
-- holding their locks. A generic plan: the form above with arrays was planned
-- anew at every call.
CREATE OR REPLACE FUNCTION aq_set_group_heads(p_locks bigint[], p_heads bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET jit TO 'off'
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_written int;
BEGIN
  IF cardinality(p_locks) = 1 THEN
    -- One group (a serial chain's every step): the plain form costs a third.
    PERFORM aq_set_group_head(p_locks[1], p_heads[1]);
    RETURN;
  END IF;
  WITH cur AS MATERIALIZED (
    SELECT x.lock_id, x.head_id, v.version
    FROM unnest(p_locks, p_heads) AS x(lock_id, head_id)
    LEFT JOIN LATERAL (
      SELECT h.version FROM action_group_heads AS h WHERE h.lock_id = x.lock_id ORDER BY h.version DESC LIMIT 1
    ) AS v ON true
  ), gone AS (
    DELETE FROM action_group_heads AS h USING cur
    WHERE (coalesce(cur.version, 0) + 1) % 8 = 0
      AND h.lock_id = cur.lock_id AND h.version >= cur.version - 7 AND h.version <= cur.version
  )
  INSERT INTO action_group_heads (lock_id, version, head_id)
  SELECT cur.lock_id, coalesce(cur.version, 0) + 1, cur.head_id FROM cur
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_written = ROW_COUNT;
  IF v_written < cardinality(p_locks) THEN
    RAISE EXCEPTION 'actions: the head record of a group among % changed under its lock', p_locks USING ERRCODE = '40001';
  END IF;
END $function$;
