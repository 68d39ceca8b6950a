-- The idle instance's probe (WakeLeadership, docs/idle-instances.md): takes
-- the wake-up leadership for p_types when it is free (advisory lock keys
-- p_key1, p_key2; a leader, p_leads, skips it: session locks stack), and says
-- whether a claimable head due p_grace_ms ago or earlier (ready) or a due
-- suspect head (suspect_ready) exists.
--
-- The "ready" probe walked actions_claimable_idx from its start, where every
-- head claimed since a held horizon leaves a dead entry: 96 293 entries and
-- 4 953 buffers for one probe, seen 100 s into a held xid. It now keeps a
-- frontier per connection as the claim does (023-claim-frontier.up.sql, same
-- constants and reasons): it looks from a floor below which it saw nothing
-- due, sweeps from the start when a late head was signalled
-- (actions_late_heads_seq) and at least once a second, and a sweep that costs
-- 2 ms or more is rationed to 1 % of the connection's time. Unlike the claim
-- it does not sweep at once when it found nothing above its floor: it is the
-- leader's safety net, and a head it misses for a second is claimed by the
-- leader's own claims meanwhile. Its floor is its own session setting
-- (aq.wake_frontier), apart from the claim's.
CREATE OR REPLACE FUNCTION aq_wake_probe(p_types text[], p_leads boolean, p_key1 integer, p_key2 integer, p_grace_ms integer)
 RETURNS TABLE(leads boolean, ready boolean, suspect_ready boolean)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
 SET jit TO 'off'
 SET search_path FROM CURRENT
AS $function$
DECLARE
  c_floor_slack       CONSTANT interval := interval '1 second';
  c_sweep_interval    CONSTANT double precision :=
    coalesce(nullif(current_setting('aq.claim_sweep_interval_ms', true), ''), '1000')::double precision / 1000;
  c_sweep_cost_factor CONSTANT double precision := 100.0;
  c_sweep_free_cost   CONSTANT double precision := 0.002;
  v_state   text[] := string_to_array(current_setting('aq.wake_frontier', true), '|');
  v_key     text := md5(p_types::text);
  v_late    bigint := coalesce(pg_sequence_last_value('actions_late_heads_seq'), 0);
  v_upto    timestamptz := now() - make_interval(secs => p_grace_ms / 1000.0);
  v_floor   timestamptz := '-infinity';
  v_swept   double precision := 0;
  v_cost    double precision := 0;
  v_seen    bigint := -1;
  v_clock   double precision := extract(epoch FROM clock_timestamp());
  v_sweeping  boolean;
BEGIN
  leads := CASE WHEN p_leads THEN true ELSE pg_try_advisory_lock(p_key1, p_key2) END;
  IF v_state[1] = v_key THEN
    v_floor := v_state[2]::timestamptz;
    v_swept := v_state[3]::double precision;
    v_cost := v_state[4]::double precision;
    v_seen := v_state[5]::bigint;
  END IF;
  IF (v_cost < c_sweep_free_cost OR v_clock - v_swept >= c_sweep_cost_factor * v_cost)
     AND (v_seen <> v_late OR v_clock - v_swept >= c_sweep_interval) THEN
    v_floor := '-infinity';
  END IF;
  v_sweeping := v_floor = '-infinity';
  -- In the index's order with LIMIT 1: the plan walks actions_claimable_idx
  -- from the floor and stops at the first match.
  -- (Not EXISTS: it drops ORDER BY and LIMIT, and its plan walked actions_pending_idx.)
  ready := (SELECT a.id FROM actions AS a
            WHERE a.is_head AND a.status = 'pending' AND NOT a.quarantined
              AND a.run_at >= v_floor AND a.run_at <= v_upto AND a.type = ANY(p_types)
            ORDER BY a.run_at, a.id LIMIT 1) IS NOT NULL;
  IF v_sweeping THEN
    v_cost := extract(epoch FROM clock_timestamp()) - v_clock;
    v_swept := extract(epoch FROM clock_timestamp());
    v_seen := v_late;
  END IF;
  IF NOT ready THEN
    -- Nothing due up to v_upto from the floor on.
    v_floor := greatest(v_floor, v_upto - c_floor_slack);
  END IF;
  PERFORM set_config('aq.wake_frontier', concat_ws('|', v_key, v_floor::text, v_swept::text, v_cost::text, v_seen::text), false);
  -- Suspects are few (actions_quarantined_idx).
  suspect_ready := (SELECT a.id FROM actions AS a
                    WHERE a.is_head AND a.status = 'pending' AND a.quarantined AND a.run_at <= now() AND a.type = ANY(p_types)
                    ORDER BY a.run_at, a.id LIMIT 1) IS NOT NULL;
  RETURN NEXT;
END $function$;
