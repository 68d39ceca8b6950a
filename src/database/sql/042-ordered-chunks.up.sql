-- 042: ordered chunks. A handler registered with `chunk: { max }` gets up to
-- `max` consecutive actions of one group per call, in id order, under one
-- lease; the database keeps every guarantee it keeps for single actions.
--
-- 1. The head is claimed (or handed off) as before. For a head whose type
--    runs in chunks, the same statement then leases the group's next pending
--    actions behind it (aq_lease_chunk_members): due, of the same type, not
--    quarantined, not asked to cancel, and no further than the first one
--    that is not (a gap would let a later action run before an earlier one).
--    They become `running` under the head's lease (same owner, same expiry)
--    without becoming heads: the group's head is still the first, so no
--    other worker can claim anything of the group, and the guard of running
--    rows (010) protects every member from operator SQL as it protects the
--    head. Each member's attempt number goes up: every member has its own
--    fencing token.
-- 2. The members are read under the group's lock row, taken with SKIP LOCKED
--    (a finish that released the group holds it already): with it no
--    producer is half-way through an insert into the group (ids are taken
--    under that lock: G4), so the members are exactly the group's next
--    actions. A group a producer holds runs its head alone this time.
-- 3. Rate limits count starts: a type or group under a rate limit is not
--    chunked (each start would need a token of its own).
-- 4. The finishing statement records a chunk in one statement: one entry per
--    member, in id order, marked with its chunk (p_chunk_of, the head's id).
--    The worker reports the done prefix, then the first member that holds
--    the group (retry, failed under `block`, released), then releases the
--    rest; the database adds the fence of the prefix: an entry is recorded as
--    reported only while every earlier member of its chunk is still held by
--    this worker (or was recorded by an earlier send of the same statement).
--    After a member lost to the reaper, the later members are released,
--    never recorded done ahead of it. A chunk whose group a producer holds is
--    deferred whole.
-- 5. Trace rows name their chunk (action_attempts.chunk_of), as do lost
--    attempts (actions.chunk_of, set with the lease and cleared by the next
--    lease of one action alone).

ALTER TABLE actions ADD COLUMN chunk_of bigint;
ALTER TABLE action_attempts ADD COLUMN chunk_of bigint;

-- 031's lease of selected heads, clearing the chunk mark of an earlier attempt.
CREATE OR REPLACE FUNCTION aq_lease_selected(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
BEGIN
  RETURN QUERY
  UPDATE actions AS a
  SET is_head            = true,
      status             = 'running',
      attempts           = a.attempts + 1,
      max_attempts       = least(a.max_attempts, coalesce(t.cap, a.max_attempts)),
      lease_owner        = p_worker,
      lease_expires_at   = now() + p_lease_ms * interval '1 millisecond',
      attempt_started_at = clock_timestamp(),
      started_at         = coalesce(a.started_at, clock_timestamp()),
      chunk_of           = NULL
  FROM unnest(p_types, p_caps) AS t(type, cap)
  WHERE a.id = ANY(p_ids)
    AND a.type = t.type
    AND a.status = 'pending'
    AND a.run_at <= now()
  RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
            a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at;
END $$;

-- Points 1-3: the members behind heads p_worker has just leased. Returns the
-- members only (the caller has the heads), each leased until its head's
-- lease ends. p_chunk_types / p_chunk_max: the types that run in chunks and
-- the most actions of a chunk, head included (values of 1 or less: none).
CREATE FUNCTION aq_lease_chunk_members(p_heads bigint[], p_worker text, p_types text[], p_caps int[], p_chunk_types text[], p_chunk_max int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  SET plan_cache_mode TO 'force_generic_plan'
  SET enable_seqscan TO 'off'
  SET jit TO 'off'
  AS $$
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
  -- The members: the candidates before each chunk's first one not ready.
  member AS (
    SELECT c.head_id, c.id, c.lease_expires_at, c.cap FROM candidate AS c
    WHERE c.n < coalesce((SELECT min(x.n) FROM candidate AS x
                          WHERE x.head_id = c.head_id AND x.id NOT IN (SELECT r.id FROM ready AS r)), 2147483647)
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
END $$;

-- The claim of 006-041 (aq_claim_actions, unchanged), then the members of
-- the chunk heads it leased (point 1), in the same statement.
CREATE FUNCTION aq_claim_chunks(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int, p_quarantined boolean,
                                p_chunk_types text[], p_chunk_max int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
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
END $$;

DROP FUNCTION aq_finish_attempts(text, bigint[], integer[], text[], jsonb[], text[], text[], integer[], text[], integer[], text[], integer[], integer, integer);
-- 039's finishing statement with point 4: p_chunk_of (one per entry, null
-- for a single action) and the chunk types, whose hand-offs and claims take
-- their members. Without them (a caller of 039's fourteen parameters) it is
-- 039's statement.
CREATE FUNCTION aq_finish_attempts(p_worker text, p_ids bigint[], p_attempts integer[], p_next_status text[], p_results jsonb[], p_errors text[], p_stacks text[], p_delays_ms integer[], p_outcomes text[], p_charges integer[], p_types text[], p_caps integer[], p_lease_ms integer, p_claim_limit integer,
                                   p_chunk_of bigint[] DEFAULT '{}', p_chunk_types text[] DEFAULT '{}', p_chunk_max integer[] DEFAULT '{}')
 RETURNS TABLE(kind text, leased aq_leased_action)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET search_path FROM CURRENT
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_done     bigint[];
  v_released bigint[];
  v_deferred bigint[];
  v_handed   int := 0;
  v_handoffs aq_leased_action[];
  v_cut      bigint[];
  v_units    int;
  v_n        bigint;
BEGIN
  -- Point 4, the fence of a chunk's prefix: the entries behind a member no
  -- longer held are released instead (rare: after a reaping mid-chunk).
  IF EXISTS (SELECT 1 FROM unnest(p_chunk_of) AS c(id) WHERE c.id IS NOT NULL) THEN
    WITH entry AS (
      SELECT t.n, t.id, t.chunk_of,
             EXISTS (SELECT 1 FROM actions AS a WHERE a.id = t.id AND a.lease_owner = p_worker AND a.attempts = t.attempt)
             OR EXISTS (SELECT 1 FROM action_attempts AS x
                        WHERE x.action_id = t.id AND x.attempt = t.attempt AND x.worker_id = p_worker AND x.outcome = t.outcome) AS held
      FROM unnest(p_ids, p_attempts, p_chunk_of, p_outcomes) WITH ORDINALITY AS t(id, attempt, chunk_of, outcome, n)
      WHERE t.chunk_of IS NOT NULL
    ),
    intact AS (
      SELECT e.n, e.held, bool_and(e.held) OVER (PARTITION BY e.chunk_of ORDER BY e.id) AS prefix_held FROM entry AS e
    )
    SELECT array_agg(i.n) INTO v_cut FROM intact AS i WHERE i.held AND NOT i.prefix_held;
    FOREACH v_n IN ARRAY coalesce(v_cut, '{}') LOOP
      p_next_status[v_n] := 'pending';
      p_results[v_n] := NULL;
      p_outcomes[v_n] := 'released';
      p_errors[v_n] := 'released: an earlier action of its chunk was no longer held by this worker';
      p_stacks[v_n] := NULL;
      p_delays_ms[v_n] := 0;
      p_charges[v_n] := 0;
    END LOOP;
  END IF;
  -- Lock the groups this batch releases in lock_id order (the order every
  -- writer uses), skipping those a producer holds; their attempts are deferred.
  WITH releasing AS MATERIALIZED (
    SELECT a.id, a.lock_id
    FROM actions AS a
    JOIN unnest(p_ids, p_next_status) AS t(id, next_status) ON a.id = t.id
    WHERE a.lock_id IS NOT NULL AND a.lease_owner = p_worker
      AND (t.next_status IN ('done', 'cancelled') OR a.cancel_requested_at IS NOT NULL
           OR (t.next_status = 'failed' AND a.on_failure = 'skip'))
  ),
  locked AS MATERIALIZED (
    SELECT g.lock_id FROM action_group_locks AS g
    WHERE g.lock_id IN (SELECT r.lock_id FROM releasing AS r)
    ORDER BY g.lock_id
    FOR UPDATE SKIP LOCKED
  )
  SELECT coalesce(array_agg(r.id), '{}') INTO v_deferred
  FROM releasing AS r WHERE r.lock_id NOT IN (SELECT l.lock_id FROM locked AS l);
  -- A chunk is deferred whole (point 4); a deferred chunk holds one slot.
  v_units := 0;
  IF cardinality(v_deferred) > 0 THEN
    SELECT coalesce(array_agg(t.id) FILTER (WHERE t.id = ANY(v_deferred) OR t.chunk_of = ANY(d.chunks)), '{}'),
           count(DISTINCT coalesce(t.chunk_of, t.id)) FILTER (WHERE t.id = ANY(v_deferred) OR t.chunk_of = ANY(d.chunks))
    INTO v_deferred, v_units
    FROM unnest(p_ids, p_chunk_of) AS t(id, chunk_of)
    CROSS JOIN (SELECT coalesce(array_agg(DISTINCT c.chunk_of), '{}') AS chunks
                FROM unnest(p_ids, p_chunk_of) AS c(id, chunk_of) WHERE c.id = ANY(v_deferred) AND c.chunk_of IS NOT NULL) AS d;
  END IF;

  PERFORM aq_act_for_worker(p_worker, CASE WHEN cardinality(p_types) > 0 THEN p_lease_ms ELSE 0 END, p_types, p_caps);
  WITH input AS (
    SELECT * FROM unnest(p_ids, p_attempts, p_next_status, p_results, p_errors, p_stacks, p_delays_ms, p_outcomes, p_charges, p_chunk_of)
      AS t(id, attempt, next_status, result, error, stack, delay_ms, outcome, charge, chunk_of)
    WHERE t.id <> ALL(v_deferred)
  ),
  ended AS (
    UPDATE actions AS a
    SET status           = CASE WHEN a.cancel_requested_at IS NOT NULL AND i.next_status <> 'done'
                                THEN 'cancelled' ELSE i.next_status END,
        result           = CASE WHEN i.next_status = 'done' THEN i.result ELSE a.result END,
        last_error       = CASE WHEN i.outcome IN ('error', 'timeout') THEN i.error ELSE a.last_error END,
        finished_at      = CASE WHEN i.next_status = 'pending' AND a.cancel_requested_at IS NULL
                                THEN NULL ELSE clock_timestamp() END,
        run_at           = CASE WHEN i.next_status = 'pending' THEN now() + i.delay_ms * interval '1 millisecond'
                                ELSE a.run_at END,
        charged_attempts = a.charged_attempts + i.charge,
        -- A release says nothing about the action: quarantine stays as it was.
        quarantined      = a.quarantined AND i.outcome = 'released',
        uncharged_losses = CASE WHEN i.outcome = 'released' THEN a.uncharged_losses ELSE 0 END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM input AS i
    -- The fence. "lease_owner = me" implies running (actions_lease_iff_running);
    -- status is not tested, so the planner drives the join from the batch by
    -- primary key.
    WHERE a.id = i.id AND a.lease_owner = p_worker AND a.attempts = i.attempt
    RETURNING a.id, a.lock_id, a.holds_group, a.status, i.attempt, i.outcome, i.error, i.stack, a.attempt_started_at, i.chunk_of
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, error_stack, chunk_of)
    SELECT e.id, e.lock_id, e.attempt, p_worker, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.status = 'cancelled' AND e.outcome <> 'done' THEN 'cancelled' ELSE e.outcome END, e.error, e.stack, e.chunk_of
    FROM ended AS e
    RETURNING action_id
  )
  SELECT (SELECT array_agg(t.action_id) FROM traced AS t),
         (SELECT array_agg(DISTINCT e.lock_id) FROM ended AS e WHERE NOT e.holds_group AND e.lock_id IS NOT NULL)
  INTO v_done, v_released;
  v_done := coalesce(v_done, '{}');

  RETURN QUERY
  SELECT CASE WHEN f.id = ANY(v_deferred) THEN 'deferred' ELSE 'finished' END,
         ROW(f.id, NULL, NULL, NULL, f.attempt, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::aq_leased_action
  FROM unnest(p_ids, p_attempts, p_outcomes) AS f(id, attempt, outcome)
  WHERE f.id = ANY(v_done) OR f.id = ANY(v_deferred)
     OR EXISTS (SELECT 1 FROM action_attempts AS x      -- recorded by an earlier send of this
                WHERE x.action_id = f.id AND x.attempt = f.attempt AND x.worker_id = p_worker AND x.outcome = f.outcome);

  IF v_released IS NOT NULL THEN
    -- The new heads the promotion handed to p_worker (primary key lookups).
    v_handoffs := ARRAY(
    SELECT ROW(a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
               a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at)::aq_leased_action
    FROM actions AS a
    -- The newest head record of each group (039: one backward index probe),
    -- then the heads by primary key. Not a join with a condition on status:
    -- a generic plan may drive it from actions_running_idx instead, whose
    -- dead entries a held horizon piles up (8 455 buffers a statement, seen).
    -- "lease_owner = me" implies running (actions_lease_iff_running).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id FROM unnest(v_released) AS r(lock_id)
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.lease_owner = p_worker);
    v_handed := cardinality(v_handoffs);
    RETURN QUERY SELECT 'claimed', h FROM unnest(v_handoffs) AS h;
    -- The members behind handed-off chunk heads (point 1; their groups are locked above).
    IF cardinality(p_chunk_types) > 0 AND EXISTS (SELECT 1 FROM unnest(v_handoffs) AS h WHERE h.type = ANY(p_chunk_types)) THEN
      RETURN QUERY SELECT 'claimed', m FROM aq_lease_chunk_members(
        ARRAY(SELECT h.id FROM unnest(v_handoffs) AS h WHERE h.type = ANY(p_chunk_types)),
        p_worker, p_types, p_caps, p_chunk_types, p_chunk_max) AS m;
    END IF;
  END IF;
  -- Fill the slots still free with an ordinary claim, in this same commit
  -- (p_claim_limit counted every attempt of the batch as ending; a deferred
  -- one still holds its slot).
  IF p_claim_limit - v_handed - v_units > 0 AND cardinality(p_types) > 0 THEN
    RETURN QUERY
    SELECT 'claimed', c FROM aq_claim_chunks(p_worker, p_types, p_caps, p_claim_limit - v_handed - v_units, p_lease_ms, false,
                                             p_chunk_types, p_chunk_max) AS c;
  END IF;
END $function$
;

-- 039's lost attempts, their trace rows naming the chunk (point 5).

CREATE OR REPLACE FUNCTION aq_end_lost_attempts(p_ids bigint[], p_culprit bigint, p_outcome text, p_reason text, p_delay_ms integer, p_only_expired boolean)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH lost AS MATERIALIZED (
    SELECT a.id, a.attempts, a.lease_owner, a.attempt_started_at, c.charge,
           CASE WHEN a.cancel_requested_at IS NOT NULL THEN 'cancelled'
                WHEN c.charge > 0 AND a.charged_attempts + c.charge >= a.max_attempts THEN 'failed'
                ELSE 'pending' END AS next_status
    FROM actions AS a
    CROSS JOIN LATERAL (
      SELECT CASE WHEN p_culprit IS NULL
                  THEN least(aq_loss_charge(a.quarantined, a.uncharged_losses), greatest(a.max_attempts - a.charged_attempts, 1))
                  WHEN a.id = p_culprit
                  THEN least(1 + a.uncharged_losses, greatest(a.max_attempts - a.charged_attempts, 1))
                  ELSE 0 END AS charge
    ) AS c
    WHERE a.id = ANY(p_ids) AND a.status = 'running' AND (NOT p_only_expired OR a.lease_expires_at < now())
    FOR UPDATE OF a
  ),
  ended AS (
    UPDATE actions AS a
    SET status           = l.next_status,
        finished_at      = CASE WHEN l.next_status = 'pending' THEN NULL ELSE clock_timestamp() END,
        run_at           = CASE WHEN l.next_status = 'pending' THEN now() + p_delay_ms * interval '1 millisecond' ELSE a.run_at END,
        charged_attempts = a.charged_attempts + l.charge,
        last_error       = CASE WHEN p_culprit IS NULL OR a.id = p_culprit THEN p_reason ELSE a.last_error END,
        -- A suspect from its second loss in a row on.
        quarantined      = CASE WHEN p_culprit IS NULL THEN a.quarantined OR a.uncharged_losses + 1 >= 2
                                WHEN a.id = p_culprit THEN true ELSE a.quarantined END,
        uncharged_losses = CASE WHEN p_culprit IS NULL THEN (CASE WHEN l.charge > 0 THEN 0 ELSE a.uncharged_losses + 1 END)
                                WHEN a.id = p_culprit THEN 0 ELSE a.uncharged_losses END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM lost AS l
    WHERE a.id = l.id
    RETURNING a.id, a.lock_id, l.attempts, l.lease_owner, l.attempt_started_at, a.status, l.charge, a.uncharged_losses, a.quarantined, a.chunk_of
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, chunk_of)
    SELECT e.id, e.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.id = p_culprit THEN 'error' ELSE p_outcome END,
           CASE WHEN p_culprit IS NULL OR e.id = p_culprit THEN p_reason
                ELSE 'released: ' || p_reason END
             || CASE WHEN p_culprit IS NOT NULL THEN ''
                     WHEN e.charge > 0 THEN ' (charged: lost again as a suspect)'
                     WHEN e.quarantined THEN ' (not charged; lost ' || e.uncharged_losses || ' times in a row: now a suspect)'
                     ELSE ' (not charged; run again at once)' END,
           e.chunk_of
    FROM ended AS e
    RETURNING action_id
  )
  SELECT e.id, e.attempts, e.lease_owner, e.status, e.charge FROM ended AS e;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- An attempt that ended for good released its group, and the release trigger
  -- (at the end of the statement above) made the next action head: it too
  -- waits p_delay_ms, for the fenced instance to be gone.
  IF p_delay_ms > 0 THEN
    UPDATE actions AS a
    SET run_at = greatest(a.run_at, now() + p_delay_ms * interval '1 millisecond')
    -- The newest head record of each released group (039), then the heads by
    -- primary key (as in aq_finish_attempts: never a walk of a status index).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id
            FROM (SELECT DISTINCT x.lock_id FROM actions AS x WHERE x.id = ANY(p_ids) AND NOT x.holds_group AND x.lock_id IS NOT NULL) AS r
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.status = 'pending';
  END IF;
  PERFORM aq_wake_workers();
END $function$
;
