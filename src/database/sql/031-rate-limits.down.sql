-- Back to 023's claim and 003's lease (search_path pinned, as since 020):
-- no pauses or rate limits in either (030 leaves both alone), no buckets.
CREATE OR REPLACE FUNCTION aq_claim_actions(p_worker text, p_types text[], p_caps int[], p_limit int, p_lease_ms int,
                                            p_quarantined boolean DEFAULT false)
  RETURNS SETOF aq_leased_action
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan -- as aq_finish_attempts (007), for the same reason
  -- An index walk in (run_at, id) order that stops at LIMIT, never a bitmap
  -- scan of the whole range plus a sort (header, point 4).
  SET enable_seqscan = off
  SET enable_bitmapscan = off
  SET search_path FROM CURRENT
  AS $$
DECLARE
  -- A head committed up to this long after its run_at is still above every
  -- floor (a producer's ordinary transaction, a finish that promoted it); the
  -- dead entries of this long of claims are what each claim walks.
  c_floor_slack    CONSTANT interval := interval '1 second';
  -- A sweep at least this often per connection (rows skipped while locked);
  -- the custom setting aq.claim_sweep_interval_ms overrides it (tests set it
  -- high to see that the other triggers of a sweep suffice).
  c_sweep_interval CONSTANT double precision :=
    coalesce(nullif(current_setting('aq.claim_sweep_interval_ms', true), ''), '1000')::double precision / 1000;
  -- A connection sweeps again only after this many times its last sweep's
  -- duration: at most 1 % of its time goes to walking a dead prefix ...
  c_sweep_cost_factor CONSTANT double precision := 100.0;
  -- ... unless that sweep took less than this (s): with no dead prefix a sweep
  -- costs what a claim did before 023, and a late head is not kept waiting.
  c_sweep_free_cost CONSTANT double precision := 0.002;
  -- Session state, one custom setting: types key | floor | last sweep's end
  -- (epoch s) | its duration (s) | actions_late_heads_seq value it saw.
  v_state   text[] := string_to_array(current_setting('aq.claim_frontier', true), '|');
  v_key     text := md5(p_types::text);
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
BEGIN
  IF p_quarantined THEN
    -- Suspects are few and claimed one at a time (actions_quarantined_idx).
    RETURN QUERY SELECT * FROM aq_lease_actions(ARRAY(
      SELECT a.id FROM actions AS a
      WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
      ORDER BY a.run_at, a.id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), p_worker, p_lease_ms, p_types, p_caps);
    RETURN;
  END IF;
  -- The sequence's one value, read without a snapshot or a row version (NULL
  -- until the first bump).
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
        AND a.type = ANY(p_types)
      ORDER BY a.run_at, a.id
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED
      -- </claim>
    ) AS c;
    IF v_sweeping THEN
      v_cost := extract(epoch FROM clock_timestamp()) - v_clock;
      v_swept := extract(epoch FROM clock_timestamp());
      v_seen := v_late;
    END IF;
    -- Nothing above the floor: maybe a head committed long after its run_at.
    EXIT WHEN cardinality(v_ids) > 0 OR v_sweeping OR NOT v_may_sweep;
    v_floor := '-infinity';
  END LOOP;
  -- Every head of these types from the floor up to the first one taken was
  -- taken or locked by another claim: the floor moves up to it (less the
  -- slack); a claim that did not fill p_limit saw every due head it could take.
  v_floor := greatest(v_floor, CASE WHEN cardinality(v_ids) < p_limit THEN now() ELSE v_first END - c_floor_slack);
  -- Session-wide (is_local false), undone if this transaction rolls back.
  PERFORM set_config('aq.claim_frontier', concat_ws('|', v_key, v_floor::text, v_swept::text, v_cost::text, v_seen::text), false);
  IF cardinality(v_ids) > 0 THEN
    RETURN QUERY SELECT * FROM aq_lease_actions(v_ids, p_worker, p_lease_ms, p_types, p_caps);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq_lease_actions(p_ids bigint[], p_worker text, p_lease_ms int, p_types text[], p_caps int[])
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

DROP FUNCTION IF EXISTS aq_lease_selected(bigint[], text, int, text[], int[]);
CREATE OR REPLACE FUNCTION aq_act_for_worker(p_worker text, p_lease_ms int, p_types text[], p_caps int[]) RETURNS void
  LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT set_config('aq.worker', p_worker, true),
         set_config('aq.handoff_lease_ms', p_lease_ms::text, true),
         set_config('aq.handoff_types', p_types::text, true),
         set_config('aq.handoff_caps', p_caps::text, true)
$$;

DROP FUNCTION IF EXISTS aq_set_group_key_rate_limit(text, double precision, int);
DROP FUNCTION IF EXISTS aq_set_group_rate_limit(bigint, double precision, int);
DROP FUNCTION IF EXISTS aq_release_group_hold(bigint);
DROP TABLE IF EXISTS action_group_rate_limits;
DROP FUNCTION IF EXISTS aq_set_rate_limit_defaults(text[], double precision[], int[]);
DROP FUNCTION IF EXISTS aq_set_rate_limit(text, double precision, int);
DROP FUNCTION IF EXISTS aq_flow_unlimited_types(text[], int[]);
DROP FUNCTION IF EXISTS aq_flow_take_tokens(text[], int);
DROP TABLE IF EXISTS action_rate_limits;
