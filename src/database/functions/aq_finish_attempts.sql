-- 042's finishing statement; the update of the ended rows sets holds_group and is_head.
CREATE OR REPLACE FUNCTION aq_finish_attempts(p_worker text, p_ids bigint[], p_attempts integer[], p_next_status text[], p_results jsonb[], p_errors text[], p_stacks text[], p_delays_ms integer[], p_outcomes text[], p_charges integer[], p_types text[], p_caps integer[], p_lease_ms integer, p_claim_limit integer, p_chunk_of bigint[] DEFAULT '{}'::bigint[], p_chunk_types text[] DEFAULT '{}'::text[], p_chunk_max integer[] DEFAULT '{}'::integer[])
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
    -- MATERIALIZED: "held" is read by the window and by the filter below; an
    -- inlined entry ran both probes twice per entry (100 primary key probes,
    -- 460 buffers for a chunk of 50, against 50 and 230).
    WITH entry AS MATERIALIZED (
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
        lease_expires_at = NULL,
        -- What the guard of 004 would set (aq_holds_group of the new status),
        -- so that the guard need not run for this row (see the trigger above).
        holds_group      = CASE WHEN a.cancel_requested_at IS NOT NULL AND i.next_status <> 'done' THEN false
                                ELSE i.next_status IN ('pending', 'running') OR (i.next_status = 'failed' AND a.on_failure = 'block') END,
        is_head          = a.is_head AND CASE WHEN a.cancel_requested_at IS NOT NULL AND i.next_status <> 'done' THEN false
                                ELSE i.next_status IN ('pending', 'running') OR (i.next_status = 'failed' AND a.on_failure = 'block') END
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
END $function$;
