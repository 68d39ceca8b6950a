-- 045: leasing a chunk's members costs time linear in the chunk's size.
--
-- 042's aq_lease_chunk_members found where each chunk ends (its first
-- candidate that is not ready) with a subquery correlated to every
-- candidate: for each of a chunk's max - 1 candidates it scanned all of
-- them again, so a chunk of n cost n² row visits. At `max: 50` that was
-- about 5 % of the database's CPU per action; at `max: 1000`, two thirds
-- (bench/row-work-floor.ts and a loop of chunks of 1 000: 270 -> 90 µs of
-- backend CPU per action). The end of each chunk is now found once, by a
-- grouped scan of the candidates, and joined. Nothing else changes: the same
-- members, in the same order, under the same locks.
CREATE OR REPLACE FUNCTION aq_lease_chunk_members(p_heads bigint[], p_worker text, p_types text[], p_caps integer[], p_chunk_types text[], p_chunk_max integer[])
 RETURNS SETOF aq_leased_action
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_heads bigint[];
  v_locks bigint[];
BEGIN
  -- The chunk heads, and their groups' lock rows (point 2), in lock_id order.
  WITH h AS (
    SELECT a.id, a.lock_id FROM actions AS a
    JOIN unnest(p_chunk_types, p_chunk_max) AS t(type, max) ON t.type = a.type AND t.max > 1
    WHERE a.id = ANY(p_heads) AND a.lease_owner = p_worker AND a.lock_id IS NOT NULL AND NOT a.quarantined
      AND NOT EXISTS (SELECT 1 FROM action_rate_limits AS r WHERE r.type = a.type AND r.per_second IS NOT NULL OFFSET 0)
      AND NOT EXISTS (SELECT 1 FROM action_group_rate_limits AS g WHERE g.lock_id = a.lock_id OFFSET 0)
  ),
  locked AS MATERIALIZED (
    SELECT g.lock_id FROM action_group_locks AS g
    WHERE g.lock_id IN (SELECT h.lock_id FROM h)
    ORDER BY g.lock_id
    FOR UPDATE SKIP LOCKED
  )
  SELECT array_agg(h.id), array_agg(h.lock_id) INTO v_heads, v_locks
  FROM h WHERE h.lock_id IN (SELECT l.lock_id FROM locked AS l);
  IF v_heads IS NULL THEN
    RETURN;
  END IF;
  -- A statement of its own, so READ COMMITTED sees every insert committed
  -- before the locks were taken.
  RETURN QUERY
  WITH head AS (
    SELECT a.id, a.lock_id, a.type, a.lease_expires_at, t.max, c.cap
    FROM actions AS a
    JOIN unnest(p_chunk_types, p_chunk_max) AS t(type, max) ON t.type = a.type
    LEFT JOIN unnest(p_types, p_caps) AS c(type, cap) ON c.type = a.type
    WHERE a.id = ANY(v_heads)
  ),
  -- The next max - 1 actions holding each group, in id order
  -- (actions_group_holding_idx, as the promotion walks it).
  candidate AS (
    SELECT h.id AS head_id, h.type, h.lease_expires_at, h.cap, c.id, c.n
    FROM head AS h
    CROSS JOIN LATERAL unnest(ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.lock_id = h.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > h.id
      ORDER BY a.lock_id, a.id LIMIT h.max - 1
    )) WITH ORDINALITY AS c(id, n)
  ),
  -- Those that can run now, locked and re-checked on their newest version
  -- (SKIP LOCKED: a row another transaction is changing ends the chunk there).
  ready AS MATERIALIZED (
    SELECT a.id FROM actions AS a
    JOIN candidate AS c ON c.id = a.id
    WHERE a.status = 'pending' AND a.type = c.type AND a.run_at <= now() AND NOT a.quarantined
      AND a.cancel_requested_at IS NULL
    FOR UPDATE OF a SKIP LOCKED
  ),
  -- Each chunk's first candidate not ready, found once per chunk.
  cut AS (
    SELECT x.head_id, min(x.n) AS n FROM candidate AS x
    WHERE NOT EXISTS (SELECT 1 FROM ready AS r WHERE r.id = x.id)
    GROUP BY x.head_id
  ),
  -- The members: the candidates before it.
  member AS (
    SELECT c.head_id, c.id, c.lease_expires_at, c.cap FROM candidate AS c
    LEFT JOIN cut AS k ON k.head_id = c.head_id
    WHERE c.n < coalesce(k.n, 2147483647)
  ),
  marked AS (
    SELECT m.id, m.head_id, m.lease_expires_at, m.cap, true AS is_member FROM member AS m
    UNION ALL
    SELECT DISTINCT m.head_id, m.head_id, NULL::timestamptz, NULL::int, false FROM member AS m
  ),
  leased AS (
    UPDATE actions AS a
    SET status             = CASE WHEN k.is_member THEN 'running' ELSE a.status END,
        attempts           = CASE WHEN k.is_member THEN a.attempts + 1 ELSE a.attempts END,
        max_attempts       = CASE WHEN k.is_member THEN least(a.max_attempts, coalesce(k.cap, a.max_attempts)) ELSE a.max_attempts END,
        lease_owner        = CASE WHEN k.is_member THEN p_worker ELSE a.lease_owner END,
        lease_expires_at   = CASE WHEN k.is_member THEN k.lease_expires_at ELSE a.lease_expires_at END,
        attempt_started_at = CASE WHEN k.is_member THEN clock_timestamp() ELSE a.attempt_started_at END,
        started_at         = coalesce(a.started_at, clock_timestamp()),
        chunk_of           = k.head_id
    FROM marked AS k
    WHERE a.id = k.id
    RETURNING k.is_member, a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
              a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at
  )
  SELECT l.id, l.lock_id, l.type, l.payload, l.attempts, l.charged_attempts, l.max_attempts,
         l.on_failure, l.run_at, l.created_at, l.idempotency_key, l.quarantined, l.lease_expires_at
  FROM leased AS l WHERE l.is_member
  ORDER BY l.id;
END $function$;
