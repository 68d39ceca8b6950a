-- Flow control, 2 of 2: rate limits per action type (issue 21;
-- docs/flow-control.md), a token bucket per type enforced in the claim and
-- shared by every instance.
--
-- Why in the claim: a limit counts starts, and only the claim starts work, so
-- taking tokens in the claim's own transaction is exact under any number of
-- instances (the bucket row is locked by the claim that spends from it; a
-- concurrent claim of the same type waits for that short transaction). No
-- attempt is ever leased without a token, so nothing is charged or released,
-- and only heads are claimed, so no group is reordered (G3).
-- Rejected: a not-before time (run_at) per head, which cannot spread one
-- type's rate over many groups without rewriting every waiting head; a
-- client-side limiter per instance, which multiplies the limit by the number
-- of instances.
-- The hand-off of a released group's next head (005-promotion.up.sql) starts
-- work without a claim, so rate-limited types are left out of it
-- (aq_act_for_worker below): their next heads become plain heads, claimed
-- through the bucket.
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
CREATE FUNCTION aq_flow_unlimited_types(p_types text[], p_caps int[]) RETURNS TABLE (types text[], caps int[])
  LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
  SELECT coalesce(array_agg(t.type ORDER BY t.n), '{}'), coalesce(array_agg(t.cap ORDER BY t.n), '{}')
  FROM unnest(p_types, p_caps) WITH ORDINALITY AS t(type, cap, n)
  WHERE NOT EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.type = t.type AND b.per_second IS NOT NULL)
$$;

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

-- The hand-off (aq_promote_groups) never starts a rate-limited type: its
-- next head waits for a claim, which spends a token. Same signature as 004.
CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT set_config('aq.worker', p_worker, true),
         set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
         set_config('aq.handoff_types', u.types::text, true), -- flow control: rate-limited types left out
         set_config('aq.handoff_caps', u.caps::text, true)
  FROM aq_flow_unlimited_types(p_types, p_caps) AS u
$$;

-- The claim of 030-flow-control.up.sql (the frontier of 023 with the pause
-- filter) with the rate limits: a type whose bucket is empty leaves the
-- selection (and the frontier's key, so the connection sweeps when its bucket
-- refills); the ordinary selection (same statement, same index, same
-- (run_at, id) order across types) then keeps at most each limited type's
-- allowance of what it found, leases those, and pays for them. Rows selected
-- beyond an allowance stay pending (their row lock ends with the claim), and
-- the floor stays below the earliest of them. A limited type therefore costs
-- the claim no walk of its own: a first version claimed each limited type by a
-- separate selection filtered by type, which walked every due head of other
-- types when the limited type had none (41-45 ms against 13 ms per claim with
-- 20 000 due heads, measured alternately on the shared 2-core machine).
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
  v_ltypes  text[];                                     -- flow control: rate-limited types with tokens
  v_lallow  int[];                                      -- ... and how many of each may start
  v_empty   text[];                                     -- ... and those whose bucket is empty
  v_trimmed timestamptz;                                -- ... the earliest head left for want of tokens
  v_all     bigint[];                                   -- ... the heads selected before the allowances
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
  -- flow control: rate limits (031): a type whose bucket is empty leaves the
  -- selection; the others keep at most their allowance of what it finds.
  IF EXISTS (SELECT 1 FROM action_rate_limits AS b WHERE b.type = ANY(v_types) AND b.per_second IS NOT NULL) THEN
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
  IF cardinality(v_ids) = 0 THEN
    RETURN;
  END IF;
  v_leased := ARRAY(SELECT l FROM aq_lease_actions(v_ids, p_worker, p_lease_ms, p_types, p_caps) AS l);
  -- flow control: pay for what was leased.
  UPDATE action_rate_limits AS b SET tokens = b.tokens - x.n
  FROM (SELECT l.type, count(*) AS n FROM unnest(v_leased) AS l GROUP BY l.type) AS x
  WHERE b.type = x.type;
  RETURN QUERY SELECT * FROM unnest(v_leased);
END $$;
