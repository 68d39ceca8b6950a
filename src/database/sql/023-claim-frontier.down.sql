-- Back to the claim of 006 (pinned search_path as since 020) and the finish
-- without planner settings.
ALTER FUNCTION aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], text[], int[], text[], int[], text[], int[], int, int)
  RESET enable_seqscan
  RESET jit;

CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan
  SET search_path FROM CURRENT
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
    SELECT a.id FROM actions AS a
    WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
    ORDER BY a.run_at, a.id
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;
-- A connection's claim frontier (custom setting aq.claim_frontier) is ignored
-- by this claim and goes with the session.

DROP TRIGGER IF EXISTS actions_after_update_late_head ON actions;
DROP TRIGGER IF EXISTS actions_after_insert_late_head ON actions;
DROP FUNCTION IF EXISTS aq_note_late_head();
DROP SEQUENCE IF EXISTS actions_late_heads_seq;
