-- The claim's selection when tenants share the queue (053, docs/tenants.md):
-- tenants with due heads are served in turn, in the order of their names,
-- each turn taking up to the tenant's weight in heads (its oldest due heads,
-- (run_at, id), heads only), so one tenant's backlog delays another tenant's
-- head by about one round of turns, whatever its depth.
--
-- Weighted round robin with a per-connection cursor: the setting
-- aq.claim_tenant_turn holds the tenant served last and the heads its turn
-- may still take, so the next claim on this connection goes on from there
-- (a claim of 1 with weights 3 and 1 takes A, A, A, B, A, ...). A turn's
-- allowance is floor(weight + random()): the weight itself for a whole
-- weight, and a fractional weight on average (0.5: one head every other
-- turn). A tenant with fewer due heads than its allowance takes what it has
-- and its turn ends (deficit round robin drops the credit of an emptied
-- queue the same way). Connections keep their own cursors: the shares hold
-- per connection, and so over all of them.
--
-- Cost: a turn is three index descents (the next tenant after the cursor on
-- actions_tenant_claimable_idx, its settings by primary key, its oldest due
-- heads on the same index), so a claim of n heads costs about n turns with
-- 10 tenants holding ready heads or with 10 000. A claim ends when it has
-- p_limit heads, after a whole round of turns that took nothing (every due
-- head locked by other claims, in paused groups, or held by a cap, a pause
-- or an empty bucket), or after 2 * p_limit + 16 turns.
--
-- Per tenant (action_tenant_settings): max_running caps the actions of the
-- tenant running at once: the claim locks the tenant's settings row (claims
-- of one capped tenant take turns, so two claims cannot both see room for the
-- last slot) and counts its running actions (actions_running_idx: running
-- rows are few) and the heads this claim selected already. A pause of the
-- tenant (action_pauses, scope 'tenant') skips it. A rate limit
-- (rate_per_second, rate_burst) lets a turn take at most the bucket's whole
-- tokens; the tokens are paid here, for every head selected: the caller
-- leases every head it gets back (aq_claim_actions; a type allowance or a
-- group bucket may hold back a few, whose tokens are then lost, as a type's
-- bucket loses the tokens of a lease that failed).
--
-- Returns the selected heads (row-locked, pending, due, of p_types), in the
-- order of the turns. Paused groups are left out as in the claim of 030.
CREATE OR REPLACE FUNCTION aq_claim_tenant_turns(p_types text[], p_limit integer, p_paused boolean)
 RETURNS bigint[]
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET enable_sort TO 'off'
 SET jit TO 'off'
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_state   text[] := string_to_array(current_setting('aq.claim_tenant_turn', true), '|');
  v_tenant  text := nullif(v_state[1], '');                  -- served last (the cursor)
  v_left    integer := coalesce(nullif(v_state[2], '')::integer, 0); -- heads its turn may still take
  v_next    text;
  v_first   text;          -- the first tenant of the current round
  v_round   integer := 0;  -- heads taken in the current round
  v_turns   integer := 0;
  v_ids     bigint[] := '{}';
  v_got     bigint[];
  v_set     action_tenant_settings;
  v_n       integer;
  v_running integer;
  v_level   double precision;
  v_now     timestamptz := clock_timestamp();
BEGIN
  WHILE cardinality(v_ids) < p_limit AND v_turns < 2 * p_limit + 16 LOOP
    IF v_left < 1 OR v_tenant IS NULL THEN
      -- The next tenant with a due head after the cursor, wrapping once.
      SELECT a.tenant INTO v_next FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.tenant > coalesce(v_tenant, '')
        AND a.run_at <= now() AND a.type = ANY(p_types)
      ORDER BY a.tenant, a.run_at, a.id LIMIT 1;
      IF v_next IS NULL AND v_tenant IS NOT NULL THEN
        SELECT a.tenant INTO v_next FROM actions AS a
        WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.tenant > ''
          AND a.run_at <= now() AND a.type = ANY(p_types)
        ORDER BY a.tenant, a.run_at, a.id LIMIT 1;
      END IF;
      EXIT WHEN v_next IS NULL; -- no tenant has a due head
      -- A whole round (back to or past its first tenant) that took nothing ends the claim.
      IF v_first IS NOT NULL AND (CASE WHEN v_next > coalesce(v_tenant, '') THEN v_tenant < v_first AND v_first <= v_next
                                       ELSE v_first > v_tenant OR v_first <= v_next END) THEN
        EXIT WHEN v_round = 0;
        v_round := 0;
        v_first := v_next;
      END IF;
      v_first := coalesce(v_first, v_next);
      v_tenant := v_next;
      SELECT * INTO v_set FROM action_tenant_settings AS s WHERE s.tenant = v_tenant;
      v_left := floor(coalesce(v_set.weight, 1) + random())::integer;
    ELSE
      -- Going on with the turn a previous claim left unfinished.
      SELECT * INTO v_set FROM action_tenant_settings AS s WHERE s.tenant = v_tenant;
      v_first := coalesce(v_first, v_tenant);
    END IF;
    v_turns := v_turns + 1;
    v_n := least(v_left, p_limit - cardinality(v_ids));
    IF v_n > 0 AND p_paused AND EXISTS (SELECT 1 FROM action_pauses AS p
                                        WHERE p.scope = 'tenant' AND p.tenant = v_tenant AND (p.until IS NULL OR p.until > now())) THEN
      v_n := 0;
    END IF;
    IF v_n > 0 AND (v_set.max_running IS NOT NULL OR v_set.rate_per_second IS NOT NULL) THEN
      -- Claims of a capped or limited tenant take turns (header).
      SELECT * INTO v_set FROM action_tenant_settings AS s WHERE s.tenant = v_tenant FOR UPDATE;
      IF v_set.max_running IS NOT NULL THEN
        SELECT count(*) INTO v_running FROM actions AS a WHERE a.status = 'running' AND a.tenant = v_tenant;
        v_running := v_running + (SELECT count(*) FROM actions AS a WHERE a.id = ANY(v_ids) AND a.tenant = v_tenant);
        v_n := least(v_n, greatest(v_set.max_running - v_running, 0));
      END IF;
      IF v_set.rate_per_second IS NOT NULL THEN
        v_level := least(coalesce(v_set.rate_burst, 1),
                         v_set.tokens + greatest(0, extract(epoch FROM v_now - v_set.refilled_at)) * v_set.rate_per_second);
        v_n := least(v_n, floor(v_level)::integer);
      END IF;
    END IF;
    v_got := '{}';
    IF v_n > 0 THEN
      v_got := ARRAY(
        SELECT a.id FROM actions AS a
        WHERE a.tenant = v_tenant AND a.is_head AND a.status = 'pending' AND NOT a.quarantined AND a.run_at <= now()
          AND a.type = ANY(p_types)
          AND a.id <> ALL(v_ids) -- its own row locks do not make this claim skip what it took in an earlier turn
          AND NOT EXISTS (SELECT 1 FROM action_pauses AS p -- paused groups (OFFSET 0: aq_claim_actions)
                          WHERE p.scope = 'group' AND p.lock_id = a.lock_id AND (p.until IS NULL OR p.until > now()) OFFSET 0)
        ORDER BY a.tenant, a.run_at, a.id
        LIMIT v_n
        FOR UPDATE OF a SKIP LOCKED);
      IF v_set.rate_per_second IS NOT NULL THEN
        UPDATE action_tenant_settings AS s SET tokens = v_level - cardinality(v_got), refilled_at = v_now WHERE s.tenant = v_tenant;
      END IF;
    END IF;
    v_ids := v_ids || v_got;
    v_round := v_round + cardinality(v_got);
    -- Fewer than asked: the tenant has no more (or may take no more): its turn ends.
    v_left := CASE WHEN cardinality(v_got) < v_n OR v_n = 0 THEN 0 ELSE v_left - cardinality(v_got) END;
  END LOOP;
  PERFORM set_config('aq.claim_tenant_turn', concat_ws('|', coalesce(v_tenant, ''), v_left::text), false);
  RETURN v_ids;
END $function$;
