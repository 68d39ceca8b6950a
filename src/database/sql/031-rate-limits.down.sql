-- Back to 030: the claim and the hand-off without rate limits, no buckets.
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

CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT set_config('aq.worker', p_worker, true),
         set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
         set_config('aq.handoff_types', p_types::text, true),
         set_config('aq.handoff_caps', p_caps::text, true)
$$;

DROP FUNCTION IF EXISTS aq_set_rate_limit_defaults(text[], double precision[], int[]);
DROP FUNCTION IF EXISTS aq_set_rate_limit(text, double precision, int);
DROP FUNCTION IF EXISTS aq_flow_unlimited_types(text[], int[]);
DROP FUNCTION IF EXISTS aq_flow_take_tokens(text[], int);
DROP TABLE IF EXISTS action_rate_limits;
