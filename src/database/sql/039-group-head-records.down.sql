-- Back to one updated row per group (038): the lock rows get their head_id
-- again from the head records, the view and the records go, and the
-- functions are 038's.

DROP VIEW action_groups;
DROP FUNCTION aq_action_groups_instead_of_insert();
ALTER TABLE action_group_locks ADD COLUMN head_id bigint;
UPDATE action_group_locks AS l
SET head_id = (SELECT a.id FROM actions AS a
               WHERE a.holds_group
                 AND a.id = (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = l.lock_id ORDER BY h.version DESC LIMIT 1));
ALTER TABLE action_group_locks SET (fillfactor = 70);
ALTER TABLE action_group_locks RENAME CONSTRAINT action_group_locks_pkey TO action_groups_pkey;
ALTER TABLE action_group_locks RENAME TO action_groups;

CREATE OR REPLACE FUNCTION aq_lock_group(p_lock_id bigint)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_head bigint;
BEGIN
  LOOP
    SELECT head_id INTO v_head FROM action_groups WHERE lock_id = p_lock_id FOR UPDATE;
    IF FOUND THEN
      RETURN v_head;
    END IF;
    INSERT INTO action_groups (lock_id) VALUES (p_lock_id) ON CONFLICT DO NOTHING;
  END LOOP;
END $function$
;

CREATE OR REPLACE FUNCTION aq_actions_before_insert()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_head bigint;
BEGIN
  IF NEW.status <> 'pending' THEN
    RAISE EXCEPTION 'actions: a new action must be pending, not %', NEW.status USING ERRCODE = '23514';
  END IF;
  NEW.attempts := 0;
  NEW.charged_attempts := 0;
  NEW.holds_group := true;
  NEW.lease_owner := NULL;
  NEW.lease_expires_at := NULL;
  NEW.attempt_started_at := NULL;
  NEW.started_at := NULL;
  NEW.finished_at := NULL;
  NEW.cancel_requested_at := NULL;
  NEW.quarantined := false;
  NEW.uncharged_losses := 0;
  IF NEW.lock_id IS NULL THEN
    NEW.id := nextval('actions_id_seq');
    NEW.is_head := true;
    RETURN NEW;
  END IF;
  v_head := aq_lock_group(NEW.lock_id);
  -- The id is taken only now, under the group lock (G4, DESIGN.md trap 4).
  NEW.id := nextval('actions_id_seq');
  -- The probe sees rows inserted earlier by this same statement, which head_id
  -- does not show yet (an AFTER trigger sets it, so that a row skipped by
  -- ON CONFLICT DO NOTHING never becomes a head).
  NEW.is_head := v_head IS NULL AND NOT EXISTS (
    SELECT 1 FROM actions WHERE lock_id = NEW.lock_id AND holds_group AND lock_id IS NOT NULL
  );
  RETURN NEW;
END $function$
;

CREATE FUNCTION aq_actions_after_insert_head()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  UPDATE action_groups SET head_id = NEW.id WHERE lock_id = NEW.lock_id;
  RETURN NULL;
END $function$
;

CREATE TRIGGER actions_after_insert_head AFTER INSERT ON actions
  FOR EACH ROW WHEN (NEW.is_head AND NEW.lock_id IS NOT NULL)
  EXECUTE FUNCTION aq_actions_after_insert_head();

CREATE OR REPLACE FUNCTION aq_actions_after_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
BEGIN
  DELETE FROM action_groups;
  RETURN NULL;
END $function$
;

CREATE OR REPLACE FUNCTION aq_promote_groups(p_groups bigint[], p_after bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_worker text := coalesce(current_setting('aq.worker', true), '');
  v_lease  int  := coalesce(nullif(current_setting('aq.handoff_lease_ms', true), ''), '0')::int;
  v_types  text[];
  v_caps   int[];
  v_todo   bigint[] := p_groups;
  v_locks  bigint[];
  v_next   bigint[];
  v_taken  bigint[];
  v_plain  bigint[];
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'actions: releasing groups (lock_id %) must run in READ COMMITTED, not %',
      p_groups, current_setting('transaction_isolation') USING ERRCODE = '55000';
  END IF;
  -- In lock_id order, like every other writer (a no-op for locks held).
  PERFORM 1 FROM action_groups WHERE lock_id = ANY(p_groups) ORDER BY lock_id FOR UPDATE;
  IF v_worker <> '' AND v_lease > 0 THEN
    v_types := current_setting('aq.handoff_types')::text[];
    v_caps := current_setting('aq.handoff_caps')::int[];
  END IF;
  WHILE cardinality(v_todo) > 0 LOOP
    -- The next holding action of each group. ORDER BY lock_id, id matches
    -- actions_group_holding_idx exactly; with ORDER BY id alone the planner may
    -- walk the primary key through every finished row of a deep group.
    SELECT array_agg(g.lock_id), array_agg(x.id) INTO v_locks, v_next
    FROM unnest(p_groups, p_after) AS g(lock_id, after_id)
    CROSS JOIN LATERAL (
      SELECT a.id FROM actions AS a
      WHERE a.lock_id = g.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > g.after_id
      ORDER BY a.lock_id, a.id LIMIT 1
    ) AS x
    WHERE g.lock_id = ANY(v_todo);
    v_locks := coalesce(v_locks, '{}');
    v_next := coalesce(v_next, '{}');
    -- Groups left empty.
    IF cardinality(v_locks) < cardinality(v_todo) THEN
      UPDATE action_groups SET head_id = NULL WHERE lock_id = ANY(v_todo) AND lock_id <> ALL(v_locks);
    END IF;
    EXIT WHEN cardinality(v_next) = 0;
    -- Hand-off: the acting worker leases the new heads it can run now.
    v_taken := '{}';
    IF v_types IS NOT NULL THEN
      SELECT coalesce(array_agg(l.id), '{}') INTO v_taken
      FROM aq_lease_actions(v_next, v_worker, v_lease, v_types, v_caps) AS l;
    END IF;
    -- "AND holds_group" is re-checked on the newest row version: a concurrent
    -- cancel of a candidate (which does not take the group lock, since it was
    -- not the head) makes the update miss it, and the loop picks that group's
    -- next action instead of crowning a cancelled row.
    v_plain := '{}';
    IF cardinality(v_taken) < cardinality(v_next) THEN
      WITH t AS (
        UPDATE actions SET is_head = true
        WHERE id = ANY(v_next) AND id <> ALL(v_taken) AND holds_group
        RETURNING id
      )
      SELECT coalesce(array_agg(t.id), '{}') INTO v_plain FROM t;
    END IF;
    IF cardinality(v_plain) > 0 THEN
      PERFORM aq_wake_workers();
    END IF;
    UPDATE action_groups AS g SET head_id = n.id
    FROM unnest(v_locks, v_next) AS n(lock_id, id)
    WHERE g.lock_id = n.lock_id AND (n.id = ANY(v_taken) OR n.id = ANY(v_plain));
    EXIT WHEN cardinality(v_taken) + cardinality(v_plain) = cardinality(v_next);
    v_todo := ARRAY(
      SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id)
      WHERE n.id <> ALL(v_taken) AND n.id <> ALL(v_plain)
    );
  END LOOP;
END $function$
;

CREATE OR REPLACE FUNCTION aq_finish_attempts(p_worker text, p_ids bigint[], p_attempts integer[], p_next_status text[], p_results jsonb[], p_errors text[], p_stacks text[], p_delays_ms integer[], p_outcomes text[], p_charges integer[], p_types text[], p_caps integer[], p_lease_ms integer, p_claim_limit integer)
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
    FROM action_groups AS g
    WHERE g.lock_id IN (SELECT x.lock_id FROM actions AS x WHERE x.id = ANY(p_ids) AND NOT x.holds_group AND x.lock_id IS NOT NULL)
      AND a.id = g.head_id AND a.status = 'pending';
  END IF;
  PERFORM aq_wake_workers();
END $function$
;

DROP FUNCTION aq_set_group_heads(bigint[], bigint[]);
DROP FUNCTION aq_set_group_head(bigint, bigint);
DROP FUNCTION aq_check_group_unchanged(bigint, bigint);
DROP TABLE action_group_heads;
