-- Back to 031's hand-off: the type filter and both anti-joins on every call.

CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_types text[] := aq_flow_claimable_types(p_types); -- flow control: paused types and queue
BEGIN
  IF EXISTS (SELECT 1 FROM action_group_rate_limits) THEN
    -- flow control: a rate-limited group's next head becomes a plain head
    -- due now, not at its old run_at (its enqueue): a head due in the past
    -- lies below the claims' floors and is found only by a sweep, which 023
    -- spaces out (up to a second on a busy machine), and this group would
    -- meet that at every action. Measured: gaps of 500-600 ms in a group
    -- limited to 5/s before, on the shared 2-core machine.
    UPDATE actions AS a SET run_at = now()
    FROM action_group_rate_limits AS g
    WHERE a.id = ANY(p_ids) AND g.lock_id = a.lock_id AND a.status = 'pending' AND a.run_at < now();
  END IF;
  IF cardinality(v_types) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM aq_lease_selected(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.id = ANY(p_ids)
      AND a.type = ANY(v_types)
      AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups (OFFSET 0: as in the claim)
                      WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()) OFFSET 0)
      AND NOT EXISTS (SELECT 1 FROM action_group_rate_limits AS g WHERE g.lock_id = a.lock_id OFFSET 0) -- flow control: limited groups
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;
