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
--
-- 041: the claim walks the claimable index in its order, never a sort of
-- every pending row (a long history).
--
-- The claim's candidate query (031, aq_claim_actions) asks for the oldest
-- (run_at, id) claimable heads, LIMIT p_limit: actions_claimable_idx gives
-- them in that order and the walk stops after p_limit. Its plan is generic and
-- made at a connection's first call (023, point 4), from the statistics of
-- that moment. Made when the statistics counted no pending row (a database
-- keeping millions of finished actions, analyzed between bursts), it scanned
-- actions_pending_idx, every pending row, and sorted them: a cost that grew
-- with the backlog for as long as the connection lived (bench/long-history.ts:
-- 486 buffers a claim of 32 beside 10 000 finished actions, 1 481 beside
-- 2 000 000, with 1 900 pending behind). Sorts are ruled out for the
-- function, as sequential and bitmap scans already are: the ordered index
-- walk is then the only cheap plan. The aggregates' ORDER BY inside the
-- function are not plan sorts and are not affected.
--
-- Tenants (053, docs/tenants.md): when any head of a tenant other than
-- 'default' waits, or a tenant has a cap, a rate limit or a pause, the
-- selection is aq_claim_tenant_turns (tenants served in turn, weighted)
-- instead of the frontier's; everything after the selection is the same.
-- Otherwise (an install that never names a tenant) the claim is the one
-- above plus the three probes of that test in its first statement: two
-- descents of the empty ends of actions_tenant_claimable_idx and one of
-- action_tenant_settings. The frontier's state is dropped while tenants take
-- turns: the floor it kept is not maintained by the turns.
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps integer[], p_limit integer, p_lease_ms integer, p_quarantined boolean DEFAULT false)
 RETURNS SETOF aq_leased_action
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET jit TO 'off'
 SET search_path FROM CURRENT
 SET enable_sort TO 'off'
AS $function$
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
  v_fair    boolean;                                    -- tenants take turns (aq_claim_tenant_turns)?
BEGIN
  -- flow control: one statement says which controls are in use (usually
  -- none: then the claim is 023's plus one probe of an empty index per
  -- candidate head for the paused groups).
  SELECT EXISTS (SELECT 1 FROM action_pauses), EXISTS (SELECT 1 FROM action_rate_limits), EXISTS (SELECT 1 FROM action_group_rate_limits),
         -- tenants: a head of another tenant than 'default' waits, or a tenant has a cap or a rate limit (header)
         EXISTS (SELECT 1 FROM actions AS a WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.tenant < 'default')
         OR EXISTS (SELECT 1 FROM actions AS a WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.tenant > 'default')
         OR EXISTS (SELECT 1 FROM action_tenant_settings AS s WHERE s.max_running IS NOT NULL OR s.rate_per_second IS NOT NULL)
  INTO v_paused, v_limited, v_glimited, v_fair;
  IF v_paused AND NOT v_fair THEN
    v_fair := EXISTS (SELECT 1 FROM action_pauses AS p WHERE p.scope = 'tenant');
  END IF;
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
  ELSIF v_fair THEN
    -- tenants: served in turn (aq_claim_tenant_turns); no frontier.
    v_ids := aq_claim_tenant_turns(v_types, p_limit, v_paused);
    v_found := cardinality(v_ids);
    IF v_state[1] IS NOT NULL THEN
      PERFORM set_config('aq.claim_frontier', '', false);
    END IF;
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
    IF NOT p_quarantined AND NOT v_fair AND cardinality(v_ids) < v_found THEN
      -- The heads left for want of tokens stay claimable: the floor must not pass them.
      SELECT min(a.run_at) INTO v_trimmed FROM actions AS a WHERE a.id = ANY(v_all) AND a.id <> ALL(v_ids);
    END IF;
  END IF;
  IF NOT p_quarantined AND NOT v_fair THEN
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
END $function$;
