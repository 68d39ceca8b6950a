-- flow control: the types of p_types a worker may take now, in their order:
-- none while the queue is paused, else those without an active type pause.
-- Called once per claim and per hand-off. PL/pgSQL, not SQL: a LANGUAGE sql
-- function that cannot be inlined (SET search_path) is planned again at every
-- call, which cost 0.5-1 ms per claim against 0.07-0.26 ms for this body with
-- its plans cached (pgbench, 3 000 calls, alternated, shared 2-core machine).
-- With no queue or type pause at all (the usual case) it is one probe.
CREATE OR REPLACE FUNCTION aq_flow_claimable_types(p_types text[])
 RETURNS text[]
 LANGUAGE plpgsql
 STABLE
 SET search_path FROM CURRENT
AS $function$
BEGIN
  -- Each probe reads one of the partial unique indexes below: the claim runs
  -- with enable_seqscan off, and a sequential scan's disabled cost (1e10)
  -- made PostgreSQL 15 JIT-compile this probe at every call (45-85 ms).
  IF NOT EXISTS (SELECT 1 FROM action_pauses AS p WHERE p.scope = 'queue')
     AND NOT EXISTS (SELECT 1 FROM action_pauses AS p WHERE p.scope = 'type') THEN
    RETURN p_types;
  END IF;
  IF EXISTS (SELECT 1 FROM action_pauses AS p WHERE p.scope = 'queue' AND (p.until IS NULL OR p.until > now())) THEN
    RETURN '{}'::text[];
  END IF;
  RETURN ARRAY(SELECT t.type FROM unnest(p_types) WITH ORDINALITY AS t(type, n)
               WHERE NOT EXISTS (SELECT 1 FROM action_pauses AS p
                                 WHERE p.scope = 'type' AND p.type = t.type AND (p.until IS NULL OR p.until > now()))
               ORDER BY t.n);
END $function$;
