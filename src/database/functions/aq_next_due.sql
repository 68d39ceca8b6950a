-- 040: the idle worker's two probes planned once per connection.
--
-- The next-due query and the wake probe (src/queue/sql/claim-actions.sql.ts,
-- wake-probe.sql.ts) were plain statements with a range on run_at. PostgreSQL
-- plans such a statement anew at every execution (a custom plan, since no
-- generic one looks cheaper), and while planning it looks up the actual end
-- of actions_claimable_idx for its estimate (get_actual_variable_range): under
-- a held MVCC horizon that walks the dead entries a claimed head leaves there.
-- Measured (bench/mvcc-pressure.ts with auto_explain, 800 actions/s into
-- 1 000 groups, 100 s into a held xid): 4 772 buffers and 20 ms for a
-- next-due query whose execution read 14 buffers. As functions with
-- plan_cache_mode = force_generic_plan they are planned at a connection's
-- first call and never again. A generic plan is made for whatever size the
-- table has then, so, as for the claim (023, point 4), sequential and bitmap
-- scans are ruled out and each probe is written in its index's order with
-- LIMIT 1: the plans are index walks that stop at the first entry (jit off:
-- a ruled-out scan's cost would cross its threshold).
-- Same results as the statements they replace (old instances keep sending those).

-- Milliseconds (database clock) until the next scheduled head of p_types is
-- due, suspects included (wait_ms), and until the next suspect head is
-- (suspect_wait_ms); each null when none is scheduled. Flow control adds the
-- end of a timed pause of these types or the queue, and the next token of a
-- rate-limited type with a due head. The reasoning: NEXT_DUE_SQL's doc.
CREATE OR REPLACE FUNCTION aq_next_due(p_types text[])
 RETURNS TABLE(wait_ms double precision, suspect_wait_ms double precision)
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET jit TO 'off'
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_due     timestamptz;
  v_suspect timestamptz;
  v_pause   timestamptz;
  v_token   timestamptz;
BEGIN
  SELECT a.run_at INTO v_due FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at > now() AND a.type = ANY(p_types)
  ORDER BY a.run_at, a.id LIMIT 1;
  SELECT a.run_at INTO v_suspect FROM actions AS a
  WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at > now() AND a.type = ANY(p_types)
  ORDER BY a.run_at, a.id LIMIT 1;
  -- Flow control, only when in use: a generic plan of the token probe ran its
  -- EXISTS as a join driven from the due heads of actions_claimable_idx,
  -- which under a held horizon is every dead entry from the index's start.
  IF EXISTS (SELECT 1 FROM action_pauses) THEN
    SELECT min(p.until) INTO v_pause FROM action_pauses AS p
    WHERE p.until > now() AND (p.scope = 'queue' OR (p.scope = 'type' AND p.type = ANY(p_types)));
  END IF;
  IF EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.per_second IS NOT NULL AND b.tokens < 1 AND b.type = ANY(p_types)) THEN
    SELECT min(b.refilled_at + (1 - b.tokens) / b.per_second * interval '1 second') INTO v_token FROM action_rate_limits AS b
    WHERE b.per_second IS NOT NULL AND b.tokens < 1 AND b.type = ANY(p_types)
      AND EXISTS (SELECT 1 FROM actions AS a
                  WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.type = b.type
                  OFFSET 0);
  END IF;
  wait_ms := ceil(extract(epoch FROM least(v_due, v_suspect, v_pause, v_token) - now()) * 1000)::float8;
  suspect_wait_ms := ceil(extract(epoch FROM v_suspect - now()) * 1000)::float8;
  RETURN NEXT;
END $function$;
