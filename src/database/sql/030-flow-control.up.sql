-- Flow control, 1 of 2: pause and resume (the whole queue, an action type, a
-- group) and the handler's back-off (issue 21; docs/flow-control.md).
--
-- A pause is a row of action_pauses, so it is shared by every instance,
-- survives restarts and is changed at runtime by REST (src/flow-control/) or
-- by an operator with psql (aq_pause_* / aq_resume_* below). Enqueue is not
-- touched: a paused group still takes new actions. What changes is what a
-- worker may take. Where the claim and the hand-off obey a pause is in
-- 031-rate-limits.up.sql, next to the rate limits, so the claim of this
-- release has one body (aq_claim_actions, 023's frontier with both controls)
-- and the hand-off one filter (aq_lease_actions):
-- - the claim takes no head of a paused type, none of a paused group, nothing
--   while the queue is paused;
-- - the hand-off of a released group's next head to the releasing worker
--   (005-promotion.up.sql) refuses the same: that head becomes a plain head
--   instead and waits for the resume.
-- A running action is left alone: it finishes (or retries, its retry then
-- waiting) as before. Order is untouched: a paused head keeps its place
-- (is_head, run_at) and later actions of its group wait behind it (G3).
--
-- Every instance obeys a pause at its next claim (each claim reads the table);
-- a resume (DELETE or UPDATE of a row) notifies actions_ready, so idle
-- workers claim at once, and the poll (WORKER_POLL_INTERVAL_MS) is the
-- fallback, which also ends a timed pause (`until`, used by a whole-type
-- back-off) that simply expires.

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
-- Called once per claim and per hand-off. PL/pgSQL, not SQL: a LANGUAGE sql
-- function that cannot be inlined (SET search_path) is planned again at every
-- call, which cost 0.5-1 ms per claim against 0.07-0.26 ms for this body with
-- its plans cached (pgbench, 3 000 calls, alternated, shared 2-core machine).
-- With no queue or type pause at all (the usual case) it is one probe.
CREATE FUNCTION aq_flow_claimable_types(p_types text[]) RETURNS text[]
  LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
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
END $$;

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
