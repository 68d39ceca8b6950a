-- Back to 030: the claim and the hand-off without rate limits, no buckets.
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_types text[] := aq_flow_claimable_types(p_types);
BEGIN
  IF cardinality(v_types) = 0 THEN
    RETURN;
  END IF;
  IF p_quarantined THEN
    RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(v_types)
        AND NOT EXISTS (SELECT 1 FROM action_pauses AS p
                        WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()))
      ORDER BY a.run_at, a.id
      LIMIT 1
      FOR UPDATE OF a SKIP LOCKED
    ), p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.type = ANY(v_types)
      AND NOT EXISTS (SELECT 1 FROM action_pauses AS p
                      WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()))
    ORDER BY a.run_at, a.id
    LIMIT p_limit
    FOR UPDATE OF a SKIP LOCKED
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;

CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT set_config('aq.worker', p_worker, true),
         set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
         set_config('aq.handoff_types', p_types::text, true),
         set_config('aq.handoff_caps', p_caps::text, true)
$$;

DROP FUNCTION IF EXISTS aq_set_rate_limit_defaults(text[], double precision[], int[]);
DROP FUNCTION IF EXISTS aq_set_rate_limit(text, double precision, int);
DROP FUNCTION IF EXISTS aq_flow_unlimited_types(text[], int[]);
DROP FUNCTION IF EXISTS aq_flow_take_tokens(text[], int);
DROP TABLE IF EXISTS action_rate_limits;
