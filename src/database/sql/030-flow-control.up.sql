-- Flow control, 1 of 2: pause and resume (the whole queue, an action type, a
-- group) and the handler's back-off (issue 21; docs/flow-control.md).
--
-- A pause is a row of action_pauses, so it is shared by every instance,
-- survives restarts and is changed at runtime by REST (src/flow-control/) or
-- by an operator with psql (aq_pause_* / aq_resume_* below). Enqueue is not
-- touched: a paused group still takes new actions. What changes is what a
-- worker may take:
-- - the claim (aq_claim_actions, replaced below with the same signature)
--   takes no head of a paused type, none of a paused group, nothing while
--   the queue is paused;
-- - the lease (aq_lease_actions, replaced below with the same signature)
--   refuses the same, which stops the hand-off of a released group's next
--   head to the releasing worker (005-promotion.up.sql): that head becomes a
--   plain head instead and waits for the resume.
-- A running action is left alone: it finishes (or retries, its retry then
-- waiting) as before. Order is untouched: a paused head keeps its place
-- (is_head, run_at) and later actions of its group wait behind it (G3).
--
-- Every instance obeys a pause at its next claim (each claim reads the table);
-- a resume (DELETE or UPDATE of a row) notifies actions_ready, so idle
-- workers claim at once, and the poll (WORKER_POLL_INTERVAL_MS) is the
-- fallback, which also ends a timed pause (`until`, used by a whole-type
-- back-off) that simply expires.
--
-- The flow-control parts of the two replaced functions are the lines marked
-- `-- flow control:`: aq_flow_claimable_types(p_types) in place of p_types,
-- and the anti-join on paused groups.

-- One row per paused target. `until` NULL: until resumed; else a timed pause
-- (a handler's whole-type back-off) that stops counting at `until` (database
-- clock). Expired rows are ignored by every reader and deleted by the next
-- pause of the same scope.
CREATE TABLE action_pauses (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope      text        NOT NULL,
  type       text,
  lock_id    bigint,
  reason     text,
  created_at timestamptz NOT NULL DEFAULT now(),
  until      timestamptz,
  CONSTRAINT action_pauses_scope_valid CHECK (scope IN ('queue', 'type', 'group')),
  -- Each scope names exactly its own target.
  CONSTRAINT action_pauses_target_matches_scope CHECK (
    (scope = 'queue' AND type IS NULL AND lock_id IS NULL)
    OR (scope = 'type' AND type IS NOT NULL AND lock_id IS NULL)
    OR (scope = 'group' AND type IS NULL AND lock_id IS NOT NULL)),
  CONSTRAINT action_pauses_reason_length CHECK (octet_length(reason) <= 1000)
);
COMMENT ON TABLE action_pauses IS
  'Paused queue, types and groups (030-flow-control.up.sql): the claim skips them; aq_pause_* / aq_resume_* change them';

-- One pause per target; the group index also serves the claim's anti-join
-- (one probe per candidate head).
CREATE UNIQUE INDEX action_pauses_queue_key ON action_pauses (scope) WHERE scope = 'queue';
CREATE UNIQUE INDEX action_pauses_type_key ON action_pauses (type) WHERE scope = 'type';
CREATE UNIQUE INDEX action_pauses_group_key ON action_pauses (lock_id) WHERE scope = 'group';

-- A back-off (ctx.backOff / RetryAfterError) ends an attempt as an uncharged
-- release with its own trace outcome. NOT VALID then VALIDATE: the check of
-- the existing rows does not block writers.
ALTER TABLE action_attempts DROP CONSTRAINT action_attempts_outcome_valid;
ALTER TABLE action_attempts ADD CONSTRAINT action_attempts_outcome_valid
  CHECK (outcome IN ('done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released', 'backed_off')) NOT VALID;
ALTER TABLE action_attempts VALIDATE CONSTRAINT action_attempts_outcome_valid;

-- flow control: the types of p_types a worker may take now, in their order:
-- none while the queue is paused, else those without an active type pause.
-- Two probes of a small table; called once per claim and per lease.
CREATE FUNCTION aq_flow_claimable_types(p_types text[]) RETURNS text[]
  LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
  SELECT CASE
    WHEN EXISTS (SELECT 1 FROM action_pauses AS p
                 WHERE p.scope = 'queue' AND (p.until IS NULL OR p.until > now())) THEN '{}'::text[]
    ELSE ARRAY(SELECT t.type FROM unnest(p_types) WITH ORDINALITY AS t(type, n)
               WHERE NOT EXISTS (SELECT 1 FROM action_pauses AS p
                                 WHERE p.scope = 'type' AND p.type = t.type AND (p.until IS NULL OR p.until > now()))
               ORDER BY t.n)
  END
$$;

-- Pauses one target (p_scope 'queue', 'type' with p_type, 'group' with
-- p_lock_id), for p_for_ms milliseconds or, when NULL, until resumed. Pausing
-- a paused target again keeps one row: the longer of the two pauses wins (an
-- open-ended one over any timed one) and a new reason replaces the old.
-- Returns the row. Raises 22023 on a bad argument, 23514 for a lock id
-- reserved for string group keys that no key was interned under.
CREATE FUNCTION aq_pause(p_scope text, p_type text, p_lock_id bigint, p_reason text DEFAULT NULL, p_for_ms bigint DEFAULT NULL)
  RETURNS action_pauses
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_until timestamptz := CASE WHEN p_for_ms IS NULL THEN NULL ELSE now() + p_for_ms * interval '1 millisecond' END;
  v_row   action_pauses;
BEGIN
  IF p_for_ms IS NOT NULL AND p_for_ms <= 0 THEN
    RAISE EXCEPTION 'actions: a timed pause needs p_for_ms > 0 (got %)', p_for_ms USING ERRCODE = '22023';
  END IF;
  -- A lock id of the range reserved for string group keys (017) names a group
  -- only once a key was interned under it (aq_pause_group_key does that first):
  -- refused otherwise, as the insert refuses it (017's trigger, 23514).
  IF p_lock_id <= -9223090561878065153 AND NOT EXISTS (SELECT 1 FROM action_group_keys WHERE lock_id = p_lock_id) THEN
    RAISE EXCEPTION 'actions: lock_id % is reserved for string group keys (lock ids up to -9223090561878065153); pause by group key (aq_pause_group_key), or another lock_id', p_lock_id
      USING ERRCODE = '23514';
  END IF;
  -- Expired timed pauses of this scope are garbage: drop them so a new pause starts afresh.
  DELETE FROM action_pauses WHERE scope = p_scope AND until IS NOT NULL AND until <= now();
  INSERT INTO action_pauses AS p (scope, type, lock_id, reason, until)
  VALUES (p_scope, p_type, p_lock_id, p_reason, v_until)
  ON CONFLICT DO NOTHING
  RETURNING * INTO v_row;
  IF v_row.id IS NULL THEN
    UPDATE action_pauses AS p
    SET reason = coalesce(p_reason, p.reason),
        until  = CASE WHEN p.until IS NULL OR v_until IS NULL THEN NULL ELSE greatest(p.until, v_until) END
    WHERE p.scope = p_scope AND p.type IS NOT DISTINCT FROM p_type AND p.lock_id IS NOT DISTINCT FROM p_lock_id
    RETURNING * INTO v_row;
  END IF;
  RETURN v_row;
EXCEPTION WHEN check_violation THEN
  -- The reserved-range refusal above keeps its own SQLSTATE and message.
  IF SQLERRM LIKE 'actions: lock_id % is reserved for string group keys%' THEN
    RAISE;
  END IF;
  RAISE EXCEPTION 'actions: cannot pause scope % (type %, lock_id %): %', p_scope, p_type, p_lock_id, SQLERRM USING ERRCODE = '22023';
END $$;

-- Resumes one target; true when it was paused. The statement trigger below
-- wakes the workers.
CREATE FUNCTION aq_resume(p_scope text, p_type text, p_lock_id bigint) RETURNS boolean
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  WITH gone AS (
    DELETE FROM action_pauses
    WHERE scope = p_scope AND type IS NOT DISTINCT FROM p_type AND lock_id IS NOT DISTINCT FROM p_lock_id
    RETURNING until
  )
  SELECT coalesce(bool_or(until IS NULL OR until > now()), false) FROM gone
$$;

-- The operator's SQL path (psql): one function per scope.
--   SELECT aq_pause_queue('downstream outage');   SELECT aq_resume_queue();
--   SELECT aq_pause_type('invoice.send');          SELECT aq_resume_type('invoice.send');
--   SELECT aq_pause_group(26);                     SELECT aq_resume_group(26);
--   SELECT aq_pause_group_key('tenant:42');        SELECT aq_resume_group_key('tenant:42');
CREATE FUNCTION aq_pause_queue(p_reason text DEFAULT NULL) RETURNS action_pauses
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_pause('queue', NULL, NULL, p_reason) $$;
CREATE FUNCTION aq_resume_queue() RETURNS boolean
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_resume('queue', NULL, NULL) $$;
CREATE FUNCTION aq_pause_type(p_type text, p_reason text DEFAULT NULL, p_for_ms bigint DEFAULT NULL) RETURNS action_pauses
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_pause('type', p_type, NULL, p_reason, p_for_ms) $$;
CREATE FUNCTION aq_resume_type(p_type text) RETURNS boolean
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_resume('type', p_type, NULL) $$;
CREATE FUNCTION aq_pause_group(p_lock_id bigint, p_reason text DEFAULT NULL) RETURNS action_pauses
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_pause('group', NULL, p_lock_id, p_reason) $$;
CREATE FUNCTION aq_resume_group(p_lock_id bigint) RETURNS boolean
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_resume('group', NULL, p_lock_id) $$;
-- A key not used yet is interned (017-group-keys.up.sql), so a group can be
-- paused before its first action arrives.
CREATE FUNCTION aq_pause_group_key(p_key text, p_reason text DEFAULT NULL) RETURNS action_pauses
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$ SELECT aq_pause('group', NULL, aq_intern_group_key(p_key), p_reason) $$;
CREATE FUNCTION aq_resume_group_key(p_key text) RETURNS boolean
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT coalesce((SELECT aq_resume('group', NULL, k.lock_id) FROM action_group_keys AS k WHERE k.group_key = p_key), false)
$$;

-- A resume (or a pause made shorter) may make heads claimable: wake the
-- workers, whichever way the row went (function, REST, a plain DELETE).
CREATE FUNCTION aq_action_pauses_after_change_wake() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  -- Heads of a resumed group may sit below a connection's claim floor (023):
  -- the bump makes every connection sweep at its next claim.
  PERFORM nextval('actions_late_heads_seq');
  PERFORM aq_wake_workers();
  RETURN NULL;
END $$;
CREATE TRIGGER action_pauses_after_change_wake AFTER UPDATE OR DELETE OR TRUNCATE ON action_pauses
  FOR EACH STATEMENT EXECUTE FUNCTION aq_action_pauses_after_change_wake();

-- The claim of 023-claim-frontier.up.sql (its reasoning holds unchanged: the
-- per-connection floor, the sweeps) with the flow-control filter; the selection
-- between the <claim> markers is the one test/database/claim-plan.db-spec.ts
-- explains (claimSelectionSql). With nothing paused the added cost is the two
-- probes of aq_flow_claimable_types and one probe of an empty index per
-- candidate head. With paused groups, their due heads above the floor are
-- walked in (run_at, id) order and dropped by the anti-join: a claim costs one
-- index probe per paused head it passes (measured in docs/flow-control.md).
-- The floor may pass a paused head: a resume wakes the workers and bumps
-- actions_late_heads_seq (above), so every connection sweeps at its next claim.
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan -- as aq_finish_attempts (007), for the same reason
  -- An index walk in (run_at, id) order that stops at LIMIT (023, point 4).
  SET enable_seqscan = off
  SET enable_bitmapscan = off
  SET search_path FROM CURRENT
  AS $$
DECLARE
  -- The frontier's constants, as in 023-claim-frontier.up.sql (reasons there).
  c_floor_slack    CONSTANT interval := interval '1 second';
  c_sweep_interval CONSTANT double precision :=
    coalesce(nullif(current_setting('aq.claim_sweep_interval_ms', true), ''), '1000')::double precision / 1000;
  c_sweep_cost_factor CONSTANT double precision := 100.0;
  c_sweep_free_cost CONSTANT double precision := 0.002;
  v_types   text[] := aq_flow_claimable_types(p_types); -- flow control: paused types and queue
  v_leased  aq_leased_action[];
  v_state   text[] := string_to_array(current_setting('aq.claim_frontier', true), '|');
  v_key     text;
  v_late    bigint;
  v_floor   timestamptz := '-infinity';
  v_swept   double precision := 0;
  v_cost    double precision := 0;
  v_seen    bigint := -1;
  v_clock   double precision := extract(epoch FROM clock_timestamp());
  v_may_sweep boolean;
  v_sweeping  boolean;
  v_ids     bigint[];
  v_first   timestamptz;
  v_found   int;
BEGIN
  IF cardinality(v_types) = 0 THEN -- flow control: nothing may be claimed
    RETURN;
  END IF;
  IF p_quarantined THEN
    -- Suspects are few and claimed one at a time (actions_quarantined_idx).
    v_ids := ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(v_types)
        AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups
                        WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()))
      ORDER BY a.run_at, a.id
      LIMIT 1
      FOR UPDATE OF a SKIP LOCKED
    );
  ELSE
    -- The frontier of 023, keyed by the types left after flow control: when a
    -- type comes back (its pause ended, its bucket refilled) the key changes
    -- and the connection sweeps, so heads the floor passed while the type was
    -- held back are found at once. A resumed group bumps the late-heads
    -- sequence instead (aq_action_pauses_after_change_wake).
    v_key := md5(v_types::text);
    v_late := coalesce(pg_sequence_last_value('actions_late_heads_seq'), 0);
    IF v_state[1] = v_key THEN
      v_floor := v_state[2]::timestamptz;
      v_swept := v_state[3]::double precision;
      v_cost := v_state[4]::double precision;
      v_seen := v_state[5]::bigint;
    END IF;
    v_may_sweep := v_cost < c_sweep_free_cost OR v_clock - v_swept >= c_sweep_cost_factor * v_cost;
    IF v_may_sweep AND (v_seen <> v_late OR v_clock - v_swept >= c_sweep_interval) THEN
      v_floor := '-infinity';
    END IF;
    LOOP
      v_sweeping := v_floor = '-infinity';
      SELECT coalesce(array_agg(c.id ORDER BY c.run_at, c.id), '{}'), min(c.run_at) INTO v_ids, v_first FROM (
        -- <claim>
        SELECT a.id, a.run_at FROM actions AS a
        WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now() AND a.run_at >= v_floor
          AND a.type = ANY(v_types)
          AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups
                          WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()))
        ORDER BY a.run_at, a.id
        LIMIT p_limit
        FOR UPDATE OF a SKIP LOCKED
        -- </claim>
      ) AS c;
      IF v_sweeping THEN
        v_cost := extract(epoch FROM clock_timestamp()) - v_clock;
        v_swept := extract(epoch FROM clock_timestamp());
        v_seen := v_late;
      END IF;
      EXIT WHEN cardinality(v_ids) > 0 OR v_sweeping OR NOT v_may_sweep;
      v_floor := '-infinity';
    END LOOP;
    v_found := cardinality(v_ids);
  END IF;
  IF NOT p_quarantined THEN
    -- As 023: every head of these types from the floor up to the first one
    -- taken was taken or locked by another claim; a claim that did not fill
    -- p_limit saw every due head it could take.
    v_floor := greatest(v_floor, CASE WHEN v_found < p_limit THEN now() ELSE v_first END - c_floor_slack);
    PERFORM set_config('aq.claim_frontier', concat_ws('|', v_key, v_floor::text, v_swept::text, v_cost::text, v_seen::text), false);
  END IF;
  IF cardinality(v_ids) = 0 THEN
    RETURN;
  END IF;
  v_leased := ARRAY(SELECT l FROM aq_lease_actions(v_ids, p_worker, p_lease_ms, p_types, p_caps) AS l);
  RETURN QUERY SELECT * FROM unnest(v_leased);
END $$;

-- The lease of 003-leases.up.sql with the same flow-control filter, for the
-- hand-off path (aq_promote_groups leases a released group's next head to the
-- releasing worker without a claim): a paused group's or type's next head is
-- not handed off; the promotion makes it a plain head, which waits.
CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_types text[] := aq_flow_claimable_types(p_types); -- flow control: paused types and queue
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
    AND t.type = ANY(v_types) -- flow control
    AND a.status = 'pending'
    AND a.run_at <= now()
    AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups
                    WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()))
  RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
            a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at;
END $$;
