-- Worker fast path, 1 of 2: the claim (caller: src/queue/claimer.service.ts).

-- Claims up to p_limit claimable heads for p_worker, leased for p_lease_ms.
-- With p_quarantined it claims at most one quarantined head instead, which the
-- caller runs alone (poison detection, see actions.quarantined).
--
-- Why it is correct:
-- - Only heads are claimable (is_head; 004-group-order.sql keeps one per
--   group), so a batch never holds two actions of one group (G3).
-- - FOR UPDATE SKIP LOCKED lets concurrent workers pass over rows another is
--   claiming; after locking, PostgreSQL re-checks the WHERE clause on the
--   newest row version, so a row claimed meanwhile is dropped (G2).
-- - The selection is an ARRAY(...) sub-select, evaluated once (an InitPlan),
--   so LIMIT ... SKIP LOCKED cannot run twice and over-claim.
-- - The lease comes from aq_lease_actions (003): database clock, attempt number
--   as fencing token.
-- Index: actions_claimable_idx (run_at, id) WHERE is_head AND status = 'pending'
-- AND NOT quarantined serves the WHERE and the ORDER BY; it holds one entry per
-- claimable head, so its cost does not grow with any group's depth (trap 5).
-- Rejected: NOT EXISTS (smaller unfinished id in the group) rescans a deep
-- backlog on every claim; pg_try_advisory_lock in a WHERE clause may run for
-- rows the LIMIT never returns and leaks locks; claim-then-advisory-lock has
-- the gap of DESIGN.md trap 1. test/claim-plan.spec.ts explains the statement
-- between the <claim> markers; keep README "How it works" in step.
CREATE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                 p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan -- as aq_finish_attempts (007), for the same reason
  AS $$
BEGIN
  IF p_quarantined THEN
    RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
      ORDER BY a.run_at, a.id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
    -- <claim>
    SELECT a.id FROM actions AS a
    WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
    ORDER BY a.run_at, a.id
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
    -- </claim>
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;
