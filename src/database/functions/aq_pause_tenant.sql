-- The operator's SQL path for a tenant (053, docs/tenants.md), beside
-- aq_pause_type and the others:
--   SELECT aq_pause_tenant('acme', 'over quota');   SELECT aq_resume_tenant('acme');
-- Nothing of the tenant starts until it is resumed or the timed pause ends
-- (aq_claim_tenant_turns skips it; no hand-off while a tenant pause exists).
-- As aq_pause: pausing a paused tenant again returns its one pause, the longer
-- of the two, a new reason replacing the old; a timed pause needs
-- p_for_ms > 0, and a bad tenant name is refused (22023 naming it).
CREATE OR REPLACE FUNCTION aq_pause_tenant(p_tenant text, p_reason text DEFAULT NULL::text, p_for_ms bigint DEFAULT NULL::bigint)
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
  IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$' THEN
    RAISE EXCEPTION 'actions: cannot pause tenant %: a tenant is 1..128 characters of letters, digits, ".", "_", ":", "@", "-", starting with a letter or a digit', quote_nullable(p_tenant)
      USING ERRCODE = '22023';
  END IF;
  DELETE FROM action_pauses WHERE scope = 'tenant' AND tenant = p_tenant AND until IS NOT NULL AND until <= now();
  INSERT INTO action_pauses AS p (scope, tenant, reason, until)
  VALUES ('tenant', p_tenant, p_reason, v_until)
  ON CONFLICT DO NOTHING
  RETURNING * INTO v_row;
  IF v_row.id IS NULL THEN
    UPDATE action_pauses AS p
    SET reason = coalesce(p_reason, p.reason),
        until  = CASE WHEN p.until IS NULL OR v_until IS NULL THEN NULL ELSE greatest(p.until, v_until) END
    WHERE p.scope = 'tenant' AND p.tenant = p_tenant
    RETURNING * INTO v_row;
  END IF;
  RETURN v_row;
END $function$;
