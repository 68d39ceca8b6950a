-- The hand-off (aq_promote_groups) never starts a rate-limited type: its
-- next head waits for a claim, which spends a token. Same signature as 004.
-- PL/pgSQL (004's was SQL): its plan is cached, see aq_flow_claimable_types (030).
CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms integer, p_types text[], p_caps integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_types text[];
  v_caps  int[];
BEGIN
  -- flow control: rate-limited types left out. aq_flow_unlimited_types's
  -- own first test is made here, so that with no rate limit (the usual
  -- case) every finishing statement makes no nested call for it.
  IF EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.per_second IS NOT NULL) THEN
    SELECT u.types, u.caps INTO v_types, v_caps FROM aq_flow_unlimited_types(p_types, p_caps) AS u;
  ELSE
    v_types := p_types;
    v_caps := p_caps;
  END IF;
  PERFORM set_config('aq.worker', p_worker, true),
          set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
          set_config('aq.handoff_types', v_types::text, true),
          set_config('aq.handoff_caps', v_caps::text, true);
END $function$;
