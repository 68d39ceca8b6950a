-- Flow control, 2 of 2: rate limits per action type and per group (issue 21;
-- docs/flow-control.md), and the one place where every flow control meets the
-- claim and the hand-off: aq_claim_actions (023's frontier with the pauses of
-- 030 and these limits, one body for the release) and aq_lease_actions (the
-- hand-off's filter).
--
-- Why in the claim: a limit counts starts, and only the claim starts work, so
-- taking tokens in the claim's own transaction is exact under any number of
-- instances (the bucket row is locked by the claim that spends from it; a
-- concurrent claim of the same type waits for that short transaction). No
-- attempt is ever leased without a token, so nothing is charged or released,
-- and only heads are claimed, so no group is reordered (G3).
-- Rejected for types: a not-before time (run_at) per head, which cannot
-- spread one type's rate over many groups without rewriting every waiting
-- head; a client-side limiter per instance, which multiplies the limit by the
-- number of instances.
-- A group is different: it runs one action at a time, so its limit is a
-- minimum spacing between its starts (plus a burst), and only its head can be
-- waiting for a token. That head is held back by the not-before time that
-- retries and ctx.backOff already use (run_at), see "Rate limits per group".
-- The hand-off of a released group's next head (005-promotion.up.sql) starts
-- work without a claim, so rate-limited types are left out of it
-- (aq_act_for_worker below) and heads of paused or rate-limited groups are
-- refused by its lease (aq_lease_actions below): those next heads become
-- plain heads, claimed through the buckets.
--
-- The flow-control parts of aq_claim_actions are the blocks marked
-- `-- flow control:`.

-- One row per limited type. The effective limit is the operator's override
-- (PUT /rate-limits/:type) if any, else the handler's default
-- (@ActionHandler({ rateLimit }), written by each instance at start-up).
-- `tokens` and `refilled_at` are the bucket: up to `burst` tokens, refilled
-- at `per_second` a second (database clock), one spent per action started.
CREATE TABLE action_rate_limits (
  type                text             PRIMARY KEY,
  default_per_second  double precision,
  default_burst       integer,
  override_per_second double precision,
  override_burst      integer,
  per_second          double precision GENERATED ALWAYS AS (coalesce(override_per_second, default_per_second)) STORED,
  burst               integer          GENERATED ALWAYS AS (
                        CASE WHEN override_per_second IS NOT NULL THEN coalesce(override_burst, 1) ELSE coalesce(default_burst, 1) END) STORED,
  tokens              double precision NOT NULL DEFAULT 0,
  refilled_at         timestamptz      NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz      NOT NULL DEFAULT now(),
  -- 0.001/s (one an hour and a bit) to 100 000/s: beyond either end a limit is a mistake.
  CONSTRAINT action_rate_limits_default_valid CHECK (
    (default_per_second IS NULL AND default_burst IS NULL)
    OR (default_per_second BETWEEN 0.001 AND 100000 AND coalesce(default_burst, 1) BETWEEN 1 AND 100000)),
  CONSTRAINT action_rate_limits_override_valid CHECK (
    (override_per_second IS NULL AND override_burst IS NULL)
    OR (override_per_second BETWEEN 0.001 AND 100000 AND coalesce(override_burst, 1) BETWEEN 1 AND 100000))
);
COMMENT ON TABLE action_rate_limits IS
  'Token bucket per action type (031-rate-limits.up.sql): override (REST) or default (handler option); the claim spends from it';

-- flow control: refills and locks the buckets of the limited types among
-- p_types and says how many heads of each may start now (at most p_want).
-- The row locks last until the calling claim commits, so the tokens it spends
-- are not spent twice.
-- The bucket holds up to burst + 0.999 tokens, of which only whole ones are
-- spent: at most `burst` start at once, and the part of a token that accrued
-- while a worker was waking up is carried, not lost. With a cap of exactly
-- `burst`, a burst of 1 lost each wake-up's latency: 20/s measured 16.3/s
-- over two instances (test/process/rate-limits.process-spec.ts).
CREATE FUNCTION aq_flow_take_tokens(p_types text[], p_want int) RETURNS TABLE (type text, allowance int)
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
BEGIN
  RETURN QUERY
  UPDATE action_rate_limits AS b
  SET tokens      = least(b.burst + 0.999, b.tokens + extract(epoch FROM clock_timestamp() - b.refilled_at) * b.per_second),
      refilled_at = clock_timestamp()
  WHERE b.type = ANY(p_types) AND b.per_second IS NOT NULL
  RETURNING b.type, least(p_want, floor(b.tokens))::int;
END $$;

-- flow control: the worker's types and caps without the rate-limited ones.
-- Called by every finishing statement (aq_act_for_worker): PL/pgSQL with a
-- one-probe path when no type is limited, for the reason given at
-- aq_flow_claimable_types (030).
CREATE FUNCTION aq_flow_unlimited_types(p_types text[], p_caps int[]) RETURNS TABLE (types text[], caps int[])
  LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.per_second IS NOT NULL) THEN
    RETURN QUERY SELECT p_types, p_caps;
    RETURN;
  END IF;
  RETURN QUERY
  SELECT coalesce(array_agg(t.type ORDER BY t.n), '{}'), coalesce(array_agg(t.cap ORDER BY t.n), '{}')
  FROM unnest(p_types, p_caps) WITH ORDINALITY AS t(type, cap, n)
  WHERE NOT EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.type = t.type AND b.per_second IS NOT NULL);
END $$;

-- Sets (or with NULL clears) the operator's override of type p_type's limit.
-- Returns the row (NULL when cleared to nothing). Raises 22023 on a bad value.
CREATE FUNCTION aq_set_rate_limit(p_type text, p_per_second double precision, p_burst int DEFAULT 1)
  RETURNS action_rate_limits
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_row action_rate_limits;
BEGIN
  INSERT INTO action_rate_limits AS b (type, override_per_second, override_burst, tokens)
  VALUES (p_type, p_per_second, CASE WHEN p_per_second IS NULL THEN NULL ELSE p_burst END, coalesce(p_burst, 1))
  ON CONFLICT (type) DO UPDATE
    SET override_per_second = excluded.override_per_second,
        override_burst      = excluded.override_burst,
        tokens              = least(b.tokens, coalesce(excluded.override_burst, b.default_burst, 1)),
        updated_at          = now()
  RETURNING * INTO v_row;
  -- Nothing left to enforce: forget the bucket.
  DELETE FROM action_rate_limits AS b WHERE b.type = p_type AND b.per_second IS NULL;
  -- A higher limit may let waiting heads start now.
  PERFORM aq_wake_workers();
  RETURN CASE WHEN v_row.per_second IS NULL THEN NULL ELSE v_row END;
EXCEPTION WHEN check_violation THEN
  RAISE EXCEPTION 'actions: invalid rate limit for type %: % per second, burst %', p_type, p_per_second, p_burst USING ERRCODE = '22023';
END $$;

-- Writes the handlers' default limits of one instance at start-up: for each
-- p_types[i], p_per_second[i] / p_burst[i] (NULL: the handler sets none,
-- which removes an old default). Overrides are left as they are.
CREATE FUNCTION aq_set_rate_limit_defaults(p_types text[], p_per_second double precision[], p_burst int[]) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  INSERT INTO action_rate_limits AS b (type, default_per_second, default_burst, tokens)
  SELECT t.type, t.per_second, t.burst, coalesce(t.burst, 1)
  FROM unnest(p_types, p_per_second, p_burst) AS t(type, per_second, burst)
  WHERE t.per_second IS NOT NULL
  ON CONFLICT (type) DO UPDATE
    SET default_per_second = excluded.default_per_second, default_burst = excluded.default_burst, updated_at = now()
    WHERE (b.default_per_second, b.default_burst) IS DISTINCT FROM (excluded.default_per_second, excluded.default_burst);
  UPDATE action_rate_limits AS b SET default_per_second = NULL, default_burst = NULL, updated_at = now()
  FROM unnest(p_types, p_per_second) AS t(type, per_second)
  WHERE b.type = t.type AND t.per_second IS NULL AND b.default_per_second IS NOT NULL;
  DELETE FROM action_rate_limits AS b WHERE b.type = ANY(p_types) AND b.per_second IS NULL;
$$;

-- Rate limits per group. One row per limited group (lock_id; a string group
-- key is interned to its lock id, 017). `tokens` and `refilled_at` are the
-- bucket: up to exactly `burst` tokens (no carried fraction, unlike the types'
-- buckets: after a quiet spell at most `burst` start in quick succession),
-- refilled at `per_second` a second (database clock), one spent per start.
-- A held-back head's token counts from when it fell due, not from the claim
-- that took it a few ms later (the worker's wake-up), up to a tenth of an
-- interval late: so a busy group starts on the schedule
-- start_0 + k / per_second, never ahead of it, wake-up latency is not lost,
-- and two starts are at least 0.9 / per_second apart. Measured, 20 starts
-- at 5/s (test/database/group-rate-limits.db-spec.ts, shared 2-core machine,
-- two runs each): with the token counted from the claim (exactly 1/rate
-- apart), 4.86/s and 4.73/s (gaps median 205 ms, min 200 ms); with the tenth,
-- 5.00/s and 4.97/s (gaps median 200 ms, min 185-193 ms); counted from when it
-- fell due without a bound, one gap was 30 ms (after a start 170 ms late).
--
-- How the claim uses it (aq_claim_actions): among the heads it selected and
-- row-locked, those of limited groups refill and take a token. A head whose
-- bucket is empty is not leased: its run_at moves to when its next token
-- accrues, as a retry's back-off moves it (007), so
-- - it stays its group's head and the group waits behind it (G3), and no
--   attempt is charged or released;
-- - the claim index finds it when due (023's floor lies below now(), so below
--   any future run_at) and the worker's next-due timer wakes for it
--   (NEXT_DUE_SQL), so starts follow the rate, not the poll: no sweep of the
--   buckets, and no cost for a group that waits;
-- - the row is locked by the claim (FOR UPDATE SKIP LOCKED), so moving run_at
--   is safe: no other claim, finish or hand-off holds it.
-- The head held back and its new run_at are kept on the bucket row (held_id,
-- held_until): a change or removal of the limit puts that run_at back to
-- now(), so the head is judged again at once under the new limit, and only a
-- run_at this table set is ever put back (never a producer's schedule or a
-- retry's back-off).
-- A bucket row is only ever spent from by a claim that holds its group's head
-- row lock (one head per group), so claims never wait on each other for it.
-- The hand-off never leases a limited group's next head; it only makes it
-- due now (aq_lease_actions below), so the next claim finds it above its
-- floor and takes a token or holds it back.
-- Rejected: the token's time written as run_at at release (promotion), which
-- needs 005's promotion replaced and misses a head enqueued into an idle
-- group; a filter joining the buckets in the claim's selection, which costs
-- every claim a probe per candidate head.
CREATE TABLE action_group_rate_limits (
  lock_id     bigint           PRIMARY KEY,
  per_second  double precision NOT NULL,
  burst       integer          NOT NULL DEFAULT 1,
  tokens      double precision NOT NULL,
  refilled_at timestamptz      NOT NULL DEFAULT clock_timestamp(),
  -- The head this bucket held back, and the run_at it gave it.
  held_id     bigint,
  held_until  timestamptz,
  updated_at  timestamptz      NOT NULL DEFAULT now(),
  -- As action_rate_limits: beyond either end a limit is a mistake.
  CONSTRAINT action_group_rate_limits_valid CHECK (per_second BETWEEN 0.001 AND 100000 AND burst BETWEEN 1 AND 100000)
);
COMMENT ON TABLE action_group_rate_limits IS
  'Token bucket per group (031-rate-limits.up.sql): the claim spends from it and holds back a head with an empty bucket (run_at)';

-- Puts back the run_at of the head that group p_lock_id's bucket held back,
-- if it still has the run_at the bucket gave it: a new or no limit judges it
-- again at once. The UPDATE wakes the workers (010).
CREATE FUNCTION aq_release_group_hold(p_lock_id bigint) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  UPDATE actions AS a SET run_at = now()
  FROM action_group_rate_limits AS g
  WHERE g.lock_id = p_lock_id AND a.id = g.held_id AND a.run_at = g.held_until
    AND a.status = 'pending' AND a.is_head AND a.run_at > now()
$$;

-- Sets (or with NULL p_per_second removes) group p_lock_id's limit:
-- p_per_second starts a second, at most p_burst at once after a quiet spell.
-- A new limit starts with a full bucket; a changed one keeps its tokens (up to
-- the new burst). Returns the row, NULL when removed. Raises 22023 on a bad
-- value. SQL path for psql:
--   SELECT aq_set_group_rate_limit(42, 5, 1);     SELECT aq_set_group_rate_limit(42, NULL);
--   SELECT aq_set_group_key_rate_limit('tenant:42', 5, 1);
CREATE FUNCTION aq_set_group_rate_limit(p_lock_id bigint, p_per_second double precision, p_burst int DEFAULT 1)
  RETURNS action_group_rate_limits
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_row action_group_rate_limits;
BEGIN
  IF p_lock_id IS NULL THEN
    RAISE EXCEPTION 'actions: a group rate limit needs a lock id' USING ERRCODE = '22023';
  END IF;
  -- As aq_pause (030): a lock id of the range reserved for string group keys
  -- names a group only once a key was interned under it (the by-key function
  -- interns first). The handler below lets this one through unchanged.
  IF p_lock_id <= -9223090561878065153 AND NOT EXISTS (SELECT 1 FROM action_group_keys WHERE lock_id = p_lock_id) THEN
    RAISE EXCEPTION 'actions: lock_id % is reserved for string group keys (lock ids up to -9223090561878065153); limit by group key (aq_set_group_key_rate_limit), or another lock_id', p_lock_id
      USING ERRCODE = '23514';
  END IF;
  -- The group's pending head, then its bucket: the order a claim locks them
  -- in (no deadlock), and a claim that is holding the head back has
  -- committed before the next statement reads held_id / held_until.
  PERFORM 1 FROM actions AS a
  WHERE a.lock_id = p_lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.is_head AND a.status = 'pending' FOR UPDATE;
  PERFORM 1 FROM action_group_rate_limits AS g WHERE g.lock_id = p_lock_id FOR UPDATE;
  PERFORM aq_release_group_hold(p_lock_id);
  IF p_per_second IS NULL THEN
    DELETE FROM action_group_rate_limits WHERE lock_id = p_lock_id;
    RETURN NULL;
  END IF;
  INSERT INTO action_group_rate_limits AS g (lock_id, per_second, burst, tokens)
  VALUES (p_lock_id, p_per_second, coalesce(p_burst, 1), coalesce(p_burst, 1))
  ON CONFLICT (lock_id) DO UPDATE
    SET per_second = excluded.per_second,
        burst      = excluded.burst,
        tokens     = least(g.tokens, excluded.burst),
        held_id    = NULL,
        held_until = NULL,
        updated_at = now()
  RETURNING * INTO v_row;
  RETURN v_row;
EXCEPTION WHEN check_violation THEN
  IF SQLERRM LIKE 'actions: lock_id % is reserved for string group keys%' THEN
    RAISE;
  END IF;
  RAISE EXCEPTION 'actions: invalid rate limit for group %: % per second, burst %', p_lock_id, p_per_second, p_burst USING ERRCODE = '22023';
END $$;

-- The same by string group key. A key not used yet is interned (017), so a
-- tenant can be limited before its first action; removing the limit of an
-- unknown key does nothing.
CREATE FUNCTION aq_set_group_key_rate_limit(p_key text, p_per_second double precision, p_burst int DEFAULT 1)
  RETURNS action_group_rate_limits
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT aq_set_group_rate_limit(
    CASE WHEN p_per_second IS NULL THEN (SELECT k.lock_id FROM action_group_keys AS k WHERE k.group_key = p_key)
         ELSE aq_intern_group_key(p_key) END,
    p_per_second, p_burst)
  WHERE p_per_second IS NOT NULL OR EXISTS (SELECT 1 FROM action_group_keys AS k WHERE k.group_key = p_key)
$$;

-- The hand-off (aq_promote_groups) never starts a rate-limited type: its
-- next head waits for a claim, which spends a token. Same signature as 004.
-- PL/pgSQL (004's was SQL): its plan is cached, see aq_flow_claimable_types (030).
CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  v_types text[];
  v_caps  int[];
BEGIN
  SELECT u.types, u.caps INTO v_types, v_caps FROM aq_flow_unlimited_types(p_types, p_caps) AS u; -- flow control: rate-limited types left out
  PERFORM set_config('aq.worker', p_worker, true),
          set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
          set_config('aq.handoff_types', v_types::text, true),
          set_config('aq.handoff_caps', v_caps::text, true);
END $$;


-- The lease of 003-leases.up.sql, unchanged, for heads the caller has
-- already filtered: the claim below, which selected them under row lock with
-- every flow-control filter applied. (Its body is 003's: the one UPDATE that
-- makes an action running.)
CREATE FUNCTION aq_lease_selected(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
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

-- The lease for every other caller, which is the hand-off (aq_promote_groups
-- leases a released group's next head to the releasing worker without a
-- claim): flow control first, then aq_lease_selected. A head of a paused type
-- (or anything while the queue is paused), of a paused group or of a
-- rate-limited group is not handed off; the promotion makes it a plain head,
-- which waits for the resume or is claimed through its group's bucket.
-- Rate-limited types never reach it (aq_act_for_worker). Same signature as 003.
CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_types text[] := aq_flow_claimable_types(p_types); -- flow control: paused types and queue
BEGIN
  IF EXISTS (SELECT 1 FROM action_group_rate_limits) THEN
    -- flow control: a rate-limited group's next head becomes a plain head
    -- due now, not at its old run_at (its enqueue): a head due in the past
    -- lies below the claims' floors and is found only by a sweep, which 023
    -- spaces out (up to a second on a busy machine), and this group would
    -- meet that at every action. Measured: gaps of 500-600 ms in a group
    -- limited to 5/s before, on the shared 2-core machine.
    UPDATE actions AS a SET run_at = now()
    FROM action_group_rate_limits AS g
    WHERE a.id = ANY(p_ids) AND g.lock_id = a.lock_id AND a.status = 'pending' AND a.run_at < now();
  END IF;
  IF cardinality(v_types) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM aq_lease_selected(ARRAY(
    SELECT a.id FROM actions AS a
    WHERE a.id = ANY(p_ids)
      AND a.type = ANY(v_types)
      AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups (OFFSET 0: as in the claim)
                      WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()) OFFSET 0)
      AND NOT EXISTS (SELECT 1 FROM action_group_rate_limits AS g WHERE g.lock_id = a.lock_id OFFSET 0) -- flow control: limited groups
  ), p_worker, p_lease_ms, p_types, p_caps);
END $$;

-- The claim: 023's frontier (its reasoning holds unchanged: the
-- per-connection floor, the sweeps) with every flow control; the selection
-- between the <claim> markers is the one test/database/claim-plan.db-spec.ts
-- explains (claimSelectionSql). This is the only body of aq_claim_actions in
-- the release (030 leaves the claim alone).
--
-- Pauses (030). Paused types and the paused queue leave the types
-- (aq_flow_claimable_types); paused groups are anti-joined in the selection.
-- With nothing paused or limited the added cost is one statement of three
-- probes (which controls are in use) and one probe of an empty index per
-- candidate head; the lease's rows are returned as they come (no array, no
-- payment). Claim of 16 at 10 000 pending, rolled back, pgbench medians
-- alternated on the shared 2-core machine: 023 alone 0.85-1.10 ms; with
-- flow control first 1.16-1.30 ms, with this fast path 1.00-1.13 ms.
-- With paused groups, their due heads above the floor are walked in
-- (run_at, id) order and dropped by the anti-join: a claim costs one index
-- probe per paused head it passes (measured in docs/flow-control.md). The
-- floor may pass a paused head: a resume wakes the workers and bumps
-- actions_late_heads_seq (030), so every connection sweeps at its next claim.
-- The anti-join ends in OFFSET 0, which keeps it a per-row probe of the
-- unique index action_pauses_group_key (a SubPlan) instead of a join the
-- planner chooses from action_pauses' statistics: before the table's first
-- ANALYZE (autovacuum's, up to a minute or more after 10 000 groups are
-- paused) the generic plan believed it held a few rows and rescanned all of
-- them for every candidate head: 2.2 s per claim with 10 000 paused groups
-- ahead of 1 000 claimable heads (bench/flow-control-claim.ts), against
-- 31 ms as a probe on the same unanalysed table.
-- The selected heads are leased by aq_lease_selected, with no second look at
-- the pauses (before, aq_lease_actions checked the types and groups again for
-- rows this claim had just filtered under row lock). So a pause that commits
-- while a claim runs may let that claim start what it had already selected,
-- exactly as a pause committed just after the claim would find it running;
-- every claim and hand-off that starts after the pause's commit obeys it.
--
-- Rate limits per type: a type whose bucket is empty leaves the selection (and
-- the frontier's key, so the connection sweeps when its bucket refills); the
-- ordinary selection (same statement, same index, same (run_at, id) order
-- across types) then keeps at most each limited type's allowance of what it
-- found, leases those, and pays for them. Rows selected beyond an allowance
-- stay pending (their row lock ends with the claim), and the floor stays
-- below the earliest of them. A limited type therefore costs the claim no walk
-- of its own: a first version claimed each limited type by a separate
-- selection filtered by type, which walked every due head of other types when
-- the limited type had none (41-45 ms against 13 ms per claim with 20 000 due
-- heads, measured alternately on the shared 2-core machine).
--
-- Rate limits per group (action_group_rate_limits above): only when that
-- table has a row (one probe of an empty table otherwise), the selected heads
-- of limited groups take a token each; those whose bucket is empty are held
-- back (run_at moved to their next token) and not leased. A claim that held
-- heads back returns fewer than it selected: the run_at change wakes the
-- workers (010), so the rest is claimed at once.
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan -- as aq_finish_attempts (007), for the same reason
  -- An index walk in (run_at, id) order that stops at LIMIT (023, point 4).
  SET enable_seqscan = off
  SET enable_bitmapscan = off
  -- A statement left with only a sequential scan (a small table without a
  -- usable index) costs 1e10 with enable_seqscan off, which is above any
  -- jit_above_cost: PostgreSQL would JIT-compile it at every claim (45-85 ms
  -- measured for one probe of an empty action_pauses, PostgreSQL 15).
  SET jit = off
  SET search_path FROM CURRENT
  AS $$
DECLARE
  -- The frontier's constants, as in 023-claim-frontier.up.sql (reasons there).
  c_floor_slack    CONSTANT interval := interval '1 second';
  c_sweep_interval CONSTANT double precision :=
    coalesce(nullif(current_setting('aq.claim_sweep_interval_ms', true), ''), '1000')::double precision / 1000;
  c_sweep_cost_factor CONSTANT double precision := 100.0;
  c_sweep_free_cost CONSTANT double precision := 0.002;
  v_types   text[] := p_types;                          -- flow control: the types left after it
  v_paused  boolean;                                    -- flow control: is anything paused,
  v_limited boolean;                                    -- ... any type limited,
  v_glimited boolean;                                   -- ... any group limited?
  v_ltypes  text[] := '{}';                             -- flow control: rate-limited types with tokens
  v_lallow  int[];                                      -- ... and how many of each may start
  v_empty   text[];                                     -- ... and those whose bucket is empty
  v_trimmed timestamptz;                                -- ... the earliest head left for want of tokens
  v_all     bigint[];                                   -- ... the heads selected before the allowances
  v_held    bigint[];                                   -- flow control: heads held back by their group's bucket
  v_gnow    timestamptz;                                -- ... the time the group buckets are read at
  v_gids    bigint[];                                   -- ... the selected heads that have a group
  v_glocks  bigint[];                                   -- ... and their groups
  -- flow control: how much of a held head's lateness its group's next token
  -- makes up, in intervals (1 / per_second): its starts are then at least
  -- 0.9 of an interval apart ("Rate limits per group" above).
  c_group_carry CONSTANT double precision := 0.1;
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
  -- flow control: one statement says which controls are in use (usually
  -- none: then the claim is 023's plus one probe of an empty index per
  -- candidate head for the paused groups).
  SELECT EXISTS (SELECT 1 FROM action_pauses), EXISTS (SELECT 1 FROM action_rate_limits), EXISTS (SELECT 1 FROM action_group_rate_limits)
  INTO v_paused, v_limited, v_glimited;
  IF v_paused THEN
    v_types := aq_flow_claimable_types(p_types); -- paused types and queue
    IF cardinality(v_types) = 0 THEN -- nothing may be claimed
      RETURN;
    END IF;
  END IF;
  -- flow control: rate limits (031): a type whose bucket is empty leaves the
  -- selection; the others keep at most their allowance of what it finds.
  IF v_limited AND EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.type = ANY(v_types) AND b.per_second IS NOT NULL) THEN
    SELECT coalesce(array_agg(t.type) FILTER (WHERE t.allowance > 0), '{}'),
           coalesce(array_agg(t.allowance) FILTER (WHERE t.allowance > 0), '{}'),
           coalesce(array_agg(t.type) FILTER (WHERE t.allowance < 1), '{}')
    INTO v_ltypes, v_lallow, v_empty
    FROM aq_flow_take_tokens(v_types, p_limit) AS t;
    v_types := ARRAY(SELECT x.type FROM unnest(v_types) WITH ORDINALITY AS x(type, n) WHERE x.type <> ALL(v_empty) ORDER BY x.n);
    IF cardinality(v_types) = 0 THEN
      RETURN;
    END IF;
  END IF;
  IF p_quarantined THEN
    -- Suspects are few and claimed one at a time (actions_quarantined_idx).
    v_ids := ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(v_types)
        AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups (OFFSET 0: header)
                        WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()) OFFSET 0)
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
          AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- flow control: paused groups (OFFSET 0: header)
                          WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()) OFFSET 0)
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
  IF cardinality(v_ltypes) > 0 THEN
    -- flow control: at most each limited type's allowance, earliest first.
    v_all := v_ids;
    v_ids := ARRAY(
      SELECT s.id FROM (
        SELECT a.id, a.type, row_number() OVER (PARTITION BY a.type ORDER BY a.run_at, a.id) AS n
        FROM actions AS a WHERE a.id = ANY(v_ids)
      ) AS s
      LEFT JOIN unnest(v_ltypes, v_lallow) AS l(type, allowance) ON l.type = s.type
      WHERE l.type IS NULL OR s.n <= l.allowance
    );
    IF NOT p_quarantined AND cardinality(v_ids) < v_found THEN
      -- The heads left for want of tokens stay claimable: the floor must not pass them.
      SELECT min(a.run_at) INTO v_trimmed FROM actions AS a WHERE a.id = ANY(v_all) AND a.id <> ALL(v_ids);
    END IF;
  END IF;
  IF NOT p_quarantined THEN
    -- As 023: every head of these types from the floor up to the first one
    -- taken was taken or locked by another claim; a claim that did not fill
    -- p_limit saw every due head it could take (less those left for want of tokens).
    v_floor := greatest(v_floor, least(CASE WHEN v_found < p_limit THEN now() ELSE v_first END, v_trimmed) - c_floor_slack);
    PERFORM set_config('aq.claim_frontier', concat_ws('|', v_key, v_floor::text, v_swept::text, v_cost::text, v_seen::text), false);
  END IF;
  IF cardinality(v_ids) > 0 AND v_glimited THEN
    -- flow control: rate limits per group. A head with a token takes it now
    -- (aq_lease_selected below leases every selected head: each is locked,
    -- pending, due and of a type in p_types); one without is held back to
    -- when its next token accrues. Bucket rows are locked after the heads,
    -- as aq_set_group_rate_limit does.
    -- The buckets are read by primary key (lock_id = ANY), whatever the
    -- table's statistics say (as the pauses' OFFSET 0 above).
    SELECT coalesce(array_agg(a.id), '{}'), coalesce(array_agg(a.lock_id), '{}') INTO v_gids, v_glocks
    FROM actions AS a WHERE a.id = ANY(v_ids) AND a.lock_id IS NOT NULL;
    v_gnow := clock_timestamp();
    -- A head this bucket held back is taken as of the time its token fell
    -- due (held_until, its run_at; the bucket held exactly one token then),
    -- or c_group_carry of an interval before this claim if it came later:
    -- the next token accrues from then, so a worker's wake-up latency does
    -- not lower the group's rate ("Rate limits per group" above).
    WITH r AS (
      SELECT x.id, g.lock_id, s.level, s.at
      FROM action_group_rate_limits AS g
      JOIN unnest(v_gids, v_glocks) AS x(id, lock_id) ON x.lock_id = g.lock_id
      CROSS JOIN LATERAL (
        SELECT g.held_id = x.id AND g.held_until <= v_gnow AS held,
               greatest(g.held_until, v_gnow - c_group_carry / g.per_second * interval '1 second') AS held_at
      ) AS h
      CROSS JOIN LATERAL (
        SELECT CASE WHEN h.held THEN least(g.burst, 1 + extract(epoch FROM h.held_at - g.held_until) * g.per_second)
                    ELSE least(g.burst, g.tokens + greatest(0, extract(epoch FROM v_gnow - g.refilled_at)) * g.per_second) END AS level,
               CASE WHEN h.held THEN h.held_at ELSE v_gnow END AS at
      ) AS s
      WHERE g.lock_id = ANY(v_glocks)
      FOR UPDATE OF g
    ), b AS (
      UPDATE action_group_rate_limits AS g
      SET tokens      = CASE WHEN r.level >= 1 THEN r.level - 1 ELSE r.level END,
          refilled_at = r.at,
          held_id     = CASE WHEN r.level >= 1 THEN NULL ELSE r.id END,
          held_until  = CASE WHEN r.level >= 1 THEN NULL ELSE r.at + (1 - r.level) / g.per_second * interval '1 second' END
      FROM r
      WHERE g.lock_id = r.lock_id
      RETURNING g.held_id, g.held_until
    ), h AS (
      UPDATE actions AS a SET run_at = b.held_until FROM b WHERE a.id = b.held_id RETURNING a.id
    )
    SELECT coalesce(array_agg(h.id), '{}') INTO v_held FROM h;
    IF cardinality(v_held) > 0 THEN
      v_ids := ARRAY(SELECT x.id FROM unnest(v_ids) WITH ORDINALITY AS x(id, n) WHERE x.id <> ALL(v_held) ORDER BY x.n);
    END IF;
  END IF;
  IF cardinality(v_ids) = 0 THEN
    RETURN;
  END IF;
  -- The heads were selected under row lock with every filter above: no re-check.
  IF cardinality(v_ltypes) = 0 THEN
    RETURN QUERY SELECT * FROM aq_lease_selected(v_ids, p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  v_leased := ARRAY(SELECT l FROM aq_lease_selected(v_ids, p_worker, p_lease_ms, p_types, p_caps) AS l);
  -- flow control: pay for what was leased.
  UPDATE action_rate_limits AS b SET tokens = b.tokens - x.n
  FROM (SELECT l.type, count(*) AS n FROM unnest(v_leased) AS l GROUP BY l.type) AS x
  WHERE b.type = x.type;
  RETURN QUERY SELECT * FROM unnest(v_leased);
END $$;
