-- Back to single actions (041): the chunk functions and marks go; the finishing
-- statement, the lease and the lost attempts are 039's and 031's again.

DROP FUNCTION aq_finish_attempts(text, bigint[], integer[], text[], jsonb[], text[], text[], integer[], text[], integer[], text[], integer[], integer, integer, bigint[], text[], integer[]);
DROP FUNCTION aq_claim_chunks(text, text[], int[], int, int, boolean, text[], int[]);
DROP FUNCTION aq_lease_chunk_members(bigint[], text, text[], int[], text[], int[]);

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
      started_at         = coalesce(a.started_at, clock_timestamp())
  FROM unnest(p_types, p_caps) AS t(type, cap)
  WHERE a.id = ANY(p_ids)
    AND a.type = t.type
    AND a.status = 'pending'
    AND a.run_at <= now()
  RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
            a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at;
END $$;

CREATE FUNCTION aq_finish_attempts(p_worker text, p_ids bigint[], p_attempts integer[], p_next_status text[], p_results jsonb[], p_errors text[], p_stacks text[], p_delays_ms integer[], p_outcomes text[], p_charges integer[], p_types text[], p_caps integer[], p_lease_ms integer, p_claim_limit integer)
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
    SELECT g.lock_id FROM action_group_locks AS g
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
    FROM actions AS a
    -- The newest head record of each group (039: one backward index probe),
    -- then the heads by primary key. Not a join with a condition on status:
    -- a generic plan may drive it from actions_running_idx instead, whose
    -- dead entries a held horizon piles up (8 455 buffers a statement, seen).
    -- "lease_owner = me" implies running (actions_lease_iff_running).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id FROM unnest(v_released) AS r(lock_id)
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.lease_owner = p_worker;
    GET DIAGNOSTICS v_handed = ROW_COUNT;
  END IF;
  -- Fill the slots still free with an ordinary claim, in this same commit
  -- (p_claim_limit counted every attempt of the batch as ending; a deferred
  -- one still holds its slot).
  IF p_claim_limit - v_handed - cardinality(v_deferred) > 0 AND cardinality(p_types) > 0 THEN
    RETURN QUERY
    SELECT 'claimed', c FROM aq_claim_actions(p_worker, p_types, p_caps, p_claim_limit - v_handed - cardinality(v_deferred), p_lease_ms) AS c;
  END IF;
END $function$
;

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
    RETURNING a.id, a.lock_id, l.attempts, l.lease_owner, l.attempt_started_at, a.status, l.charge, a.uncharged_losses, a.quarantined
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT e.id, e.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.id = p_culprit THEN 'error' ELSE p_outcome END,
           CASE WHEN p_culprit IS NULL OR e.id = p_culprit THEN p_reason
                ELSE 'released: ' || p_reason END
             || CASE WHEN p_culprit IS NOT NULL THEN ''
                     WHEN e.charge > 0 THEN ' (charged: lost again as a suspect)'
                     WHEN e.quarantined THEN ' (not charged; lost ' || e.uncharged_losses || ' times in a row: now a suspect)'
                     ELSE ' (not charged; run again at once)' END
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

ALTER TABLE action_attempts DROP COLUMN chunk_of;
ALTER TABLE actions DROP COLUMN chunk_of;
