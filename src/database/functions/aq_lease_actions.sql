-- 038: the hand-off's fast path. The finishing statement's hand-off
-- (aq_lease_actions, 031) first tells in one statement whether any pause or
-- group rate limit exists, as the claim does; with none it is 003's lease
-- (aq_lease_selected) and nothing more: no call of the type filter, no
-- per-head anti-joins. With a pause or a group limit it is 031's, unchanged.
-- (A change of 031's function after 031 was applied on some databases: a
-- forward migration, so that every database gets it.)
-- 053: no hand-off while a tenant has a cap, a rate limit or a pause (below).
CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms integer, p_types text[], p_caps integer[])
 RETURNS SETOF aq_leased_action
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_types    text[];
  v_paused   boolean;
  v_glimited boolean;
BEGIN
  -- Which controls are in use, in one statement (as in the claim): with none,
  -- the finishing statement's hand-off is 003's lease and nothing more.
  SELECT EXISTS (SELECT 1 FROM action_pauses), EXISTS (SELECT 1 FROM action_group_rate_limits) INTO v_paused, v_glimited;
  -- Tenants (053): while a tenant has a cap, a rate limit or a pause, no
  -- hand-off: the group's next head becomes a plain head and every start goes
  -- through the claim's tenant turns, which enforce them. Turns alone keep the
  -- hand-off: a group's next action goes on in the slot of the one before, as
  -- without tenants; the turns share out the claims of heads. (Without the
  -- hand-off, tenant B's 10-step chains behind tenant A's 100 000 actions
  -- waited 13x their time alone, p99, each step waiting for a claim:
  -- bench/tenant-fairness.ts.)
  IF EXISTS (SELECT 1 FROM action_tenant_settings AS s WHERE s.max_running IS NOT NULL OR s.rate_per_second IS NOT NULL)
     OR (v_paused AND EXISTS (SELECT 1 FROM action_pauses AS p WHERE p.scope = 'tenant')) THEN
    RETURN;
  END IF;
  IF NOT v_paused AND NOT v_glimited THEN
    RETURN QUERY SELECT * FROM aq_lease_selected(p_ids, p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  v_types := aq_flow_claimable_types(p_types); -- flow control: paused types and queue
  IF v_glimited THEN
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
END $function$;
