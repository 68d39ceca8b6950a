-- Worker fast path, 2 of 2: the batched finish, which also takes the next work
-- for the slots it frees (caller: src/queue/attempt-finisher.service.ts).

-- Ends a batch of attempts of p_worker in one statement and one commit, then
-- takes work for the freed slots in the same commit:
-- 1. Each action moves to its next state (p_next_status: done, pending for a
--    retry or release, failed, cancelled; a pending cancellation request turns
--    anything but done into cancelled) and gets one trace row. Fenced per row:
--    only while still running under p_worker's lease with the same attempt.
--    p_charges[i] (0 or 1) is added to charged_attempts.
-- 2. A head that released its group promotes the next head; acting for
--    p_worker (aq_act_for_worker), the promotion hands it straight to p_worker
--    when its type is in p_types.
-- 3. Claims up to p_claim_limit minus the hand-offs more actions.
-- A group that a producer holds locked right now (an open transaction that
-- enqueued into it) is not waited for: its attempt comes back `deferred` and
-- the caller sends it again shortly. An attempt sent again after a lost answer
-- (client-side timeout) whose trace row p_worker already wrote comes back
-- `finished`, so re-sending is safe.
-- Returns rows (kind, aq_leased_action columns): kind `claimed` with every
-- column (hand-offs and claims), `finished` or `deferred` with id and attempts.
CREATE FUNCTION aq_finish_attempts(
  p_worker text, p_ids bigint[], p_attempts int[], p_next_status text[], p_results jsonb[],
  p_errors text[], p_stacks text[], p_delays_ms int[], p_outcomes text[], p_charges int[],
  p_types text[], p_caps int[], p_lease_ms int, p_claim_limit int
) RETURNS TABLE (kind text, leased aq_leased_action)
  LANGUAGE plpgsql VOLATILE
  -- Generic plans, for this statement and the triggers and promotion it runs:
  -- PL/pgSQL otherwise kept re-planning these statements on every call (custom
  -- plans), which cost a serial group 0.5-0.9 ms per action here (2.05 against
  -- 1.09 ms per step of a one-group chain, measured alternately, 2026-12-01).
  SET plan_cache_mode = force_generic_plan
  AS $$
#variable_conflict use_column
DECLARE
  v_done     bigint[];
  v_released bigint[];
  v_deferred bigint[];
  v_handed   int := 0;
BEGIN
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
    SELECT g.lock_id FROM action_groups AS g
    WHERE g.lock_id IN (SELECT r.lock_id FROM releasing AS r)
    ORDER BY g.lock_id
    FOR UPDATE SKIP LOCKED
  )
  SELECT coalesce(array_agg(r.id), '{}') INTO v_deferred
  FROM releasing AS r WHERE r.lock_id NOT IN (SELECT l.lock_id FROM locked AS l);

  PERFORM aq_act_for_worker(p_worker, CASE WHEN cardinality(p_types) > 0 THEN p_lease_ms ELSE 0 END, p_types, p_caps);
  WITH input AS (
    SELECT * FROM unnest(p_ids, p_attempts, p_next_status, p_results, p_errors, p_stacks, p_delays_ms, p_outcomes, p_charges)
      AS t(id, attempt, next_status, result, error, stack, delay_ms, outcome, charge)
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
    RETURNING a.id, a.lock_id, a.holds_group, a.status, i.attempt, i.outcome, i.error, i.stack, a.attempt_started_at
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, error_stack)
    SELECT e.id, e.lock_id, e.attempt, p_worker, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.status = 'cancelled' AND e.outcome <> 'done' THEN 'cancelled' ELSE e.outcome END, e.error, e.stack
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
    RETURN QUERY
    SELECT 'claimed', ROW(a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
                          a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at)::aq_leased_action
    FROM unnest(v_released) AS r(lock_id)
    CROSS JOIN LATERAL (SELECT g.head_id FROM action_groups AS g WHERE g.lock_id = r.lock_id) AS g
    CROSS JOIN LATERAL (SELECT * FROM actions AS x WHERE x.id = g.head_id) AS a
    WHERE a.status = 'running' AND a.lease_owner = p_worker;
    GET DIAGNOSTICS v_handed = ROW_COUNT;
  END IF;
  -- Fill the slots still free with an ordinary claim, in this same commit
  -- (p_claim_limit counted every attempt of the batch as ending; a deferred
  -- one still holds its slot).
  IF p_claim_limit - v_handed - cardinality(v_deferred) > 0 AND cardinality(p_types) > 0 THEN
    RETURN QUERY
    SELECT 'claimed', c FROM aq_claim_actions(p_worker, p_types, p_caps, p_claim_limit - v_handed - cardinality(v_deferred), p_lease_ms) AS c;
  END IF;
END $$;
