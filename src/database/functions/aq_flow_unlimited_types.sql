-- flow control: the worker's types and caps without the rate-limited ones.
-- Called by every finishing statement (aq_act_for_worker): PL/pgSQL with a
-- one-probe path when no type is limited, for the reason given at
-- aq_flow_claimable_types (030).
CREATE OR REPLACE FUNCTION aq_flow_unlimited_types(p_types text[], p_caps integer[])
 RETURNS TABLE(types text[], caps integer[])
 LANGUAGE plpgsql
 STABLE
 SET search_path FROM CURRENT
AS $function$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.per_second IS NOT NULL) THEN
    RETURN QUERY SELECT p_types, p_caps;
    RETURN;
  END IF;
  RETURN QUERY
  SELECT coalesce(array_agg(t.type ORDER BY t.n), '{}'), coalesce(array_agg(t.cap ORDER BY t.n), '{}')
  FROM unnest(p_types, p_caps) WITH ORDINALITY AS t(type, cap, n)
  WHERE NOT EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.type = t.type AND b.per_second IS NOT NULL);
END $function$;
