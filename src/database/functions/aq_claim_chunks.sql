-- The claim of 006-041 (aq_claim_actions, unchanged), then the members of
-- the chunk heads it leased (point 1), in the same statement.
CREATE OR REPLACE FUNCTION aq_claim_chunks(p_worker text, p_types text[], p_caps integer[], p_limit integer, p_lease_ms integer, p_quarantined boolean, p_chunk_types text[], p_chunk_max integer[])
 RETURNS SETOF aq_leased_action
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_heads aq_leased_action[];
BEGIN
  -- A suspect runs alone (poison detection, 011).
  IF p_quarantined OR coalesce(cardinality(p_chunk_types), 0) = 0 THEN
    RETURN QUERY SELECT * FROM aq_claim_actions(p_worker, p_types, p_caps, p_limit, p_lease_ms, p_quarantined);
    RETURN;
  END IF;
  v_heads := ARRAY(SELECT c FROM aq_claim_actions(p_worker, p_types, p_caps, p_limit, p_lease_ms, false) AS c);
  RETURN QUERY SELECT * FROM unnest(v_heads);
  IF EXISTS (SELECT 1 FROM unnest(v_heads) AS h WHERE h.type = ANY(p_chunk_types) AND h.lock_id IS NOT NULL) THEN
    RETURN QUERY SELECT * FROM aq_lease_chunk_members(
      ARRAY(SELECT h.id FROM unnest(v_heads) AS h WHERE h.type = ANY(p_chunk_types) AND h.lock_id IS NOT NULL),
      p_worker, p_types, p_caps, p_chunk_types, p_chunk_max);
  END IF;
END $function$;
