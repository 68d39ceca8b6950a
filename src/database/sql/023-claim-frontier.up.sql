-- Issue 20: throughput that does not depend on the MVCC horizon. This
-- migration replaces the claim (006-worker-claim.up.sql); its head selection
-- now lives here, between the <claim> markers.
--
-- Where the time went (bench/mvcc-probe.ts: claim 32, finish 32, repeat,
-- while a second session holds `BEGIN; SELECT txid_current();` idle; 2-core
-- shared machine, autovacuum off as on this server, 2026-12-01):
-- - The claim walks actions_claimable_idx from its smallest (run_at, id). A
--   claimed head leaves its old entry there, pointing at a row version that
--   no one may prune while the horizon is held, and the btree cannot mark it
--   dead either (kill_prior_tuple needs the version dead to everyone). Those
--   entries sit exactly where every claim starts, so each claim visits all
--   heads claimed since the horizon: 24 000 of them after 24 000 actions
--   (1 273 buffers per claim), growing for as long as the hold lasts.
-- - The finishing UPDATE's cached generic plan was built at the connection's
--   first finish, when the table was nearly empty: a sequential scan of
--   actions filtered on lease_owner, on every batch, forever (1.7 ms at
--   10 000 row versions, growing with history and dead versions alike). The
--   claim's generic plan likewise picked a bitmap scan of every entry in
--   run_at <= now() plus a sort, which cannot stop at LIMIT.
--
-- The design (each statement below says why):
-- 1. A claim frontier per connection. Each connection remembers, for its set
--    of types, a floor on run_at under which it saw no claimable head it
--    could take; the claim scans (run_at, id) from the floor instead of from
--    the start, so it walks only the dead entries of about a second of
--    claims, however long the horizon is held. The floor is session state
--    (a custom setting), not a row: a row rewritten on every claim would be
--    one more dead version per claim, the very disease.
-- 2. Heads that become claimable below a floor ("late": a promotion that no
--    worker took over, an UPDATE by an operator, an insert with a past
--    run_at) bump a sequence (no MVCC, nothing to vacuum); a connection that
--    sees it moved sweeps: one claim from the start of the index, which also
--    recomputes its floor. So does a claim that found nothing above its floor
--    (a producer transaction that committed long after its run_at), and
--    every connection at least once a second (a row skipped while another
--    transaction held it locked).
-- 3. A sweep is the old claim's walk, so sweeps are rationed by their cost:
--    a connection sweeps again only after 100 times as long as its last
--    sweep took, when that sweep took 2 ms or more. With no held horizon a
--    sweep costs what a claim always did (dead entries are marked and
--    skipped) and is not delayed; under a held horizon a connection spends
--    at most 1 % of its time sweeping, and a late head waits at most about
--    100 sweeps' time (or until the next claim of that connection).
-- 4. Planner settings on the two hot functions (their plans are generic and
--    cached per connection, see 007): no sequential scan and, for the claim,
--    no bitmap scan, so the plans stay index walks that stop at LIMIT,
--    whatever the table's size when the plan was made.
--
-- Guarantees (DESIGN.md) are untouched: the floor only decides where the
-- scan of claimable heads starts. The selection is the same statement with
-- one more lower bound, so heads only (G3), FOR UPDATE SKIP LOCKED and the
-- lease of aq_lease_actions (G2, fencing) are as in 006. A head below a
-- floor is delayed, never lost: the sweeps above find it (G9).

-- Bumped (nextval) whenever a head becomes claimable with a run_at already in
-- the past; only a change of its value is read. A sequence because it is not
-- transactional: reading and bumping it writes no row version.
CREATE SEQUENCE actions_late_heads_seq AS bigint CYCLE;

-- Row level with a WHEN clause, like the wake-up triggers (010): an ordinary
-- insert (run_at defaults to now()), a claim, a hand-off and a completion
-- never enter PL/pgSQL. It fires for a plain promotion (is_head becomes true
-- on a row enqueued earlier), an operator's UPDATE that makes an old row a
-- claimable head again, and an insert with an explicit past run_at.
CREATE FUNCTION aq_note_late_head() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM nextval('actions_late_heads_seq');
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_insert_late_head AFTER INSERT ON actions
  FOR EACH ROW WHEN (NEW.is_head AND NEW.run_at < now())
  EXECUTE FUNCTION aq_note_late_head();

CREATE TRIGGER actions_after_update_late_head AFTER UPDATE OF status, run_at, is_head, quarantined ON actions
  FOR EACH ROW WHEN (
    NEW.status = 'pending' AND NEW.is_head AND NOT NEW.quarantined AND NEW.run_at < now()
    AND (OLD.status <> 'pending' OR NOT OLD.is_head OR OLD.run_at IS DISTINCT FROM NEW.run_at
         OR OLD.quarantined IS DISTINCT FROM NEW.quarantined)
  )
  EXECUTE FUNCTION aq_note_late_head();

-- Claims up to p_limit claimable heads for p_worker, leased for p_lease_ms.
-- With p_quarantined it claims at most one quarantined head instead, which the
-- caller runs alone (poison detection, see actions.quarantined). Signature and
-- result as in 006 (old instances and aq_finish_attempts call it).
--
-- Why it is correct: as 006 (heads only, SKIP LOCKED re-checked on the newest
-- row version, the lease by aq_lease_actions), plus the floor: every live
-- claimable head of p_types is at or above the floor, or was locked by another
-- transaction when the floor passed it, or committed later with an older
-- run_at; the last two are found by the next sweep (see the header).
-- The selection is a sub-select aggregated once (one execution, so LIMIT ...
-- SKIP LOCKED cannot run twice and over-claim); the lease is the next
-- statement of the same transaction, which keeps the row locks.
-- Index: actions_claimable_idx (run_at, id), the range [floor, now()].
-- test/database/claim-plan.db-spec.ts explains the statement between the
-- <claim> markers (the sweep: floor -infinity).
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

-- The finishing statement's UPDATE joins the batch to actions by primary key;
-- a generic plan made while the table was small scanned the whole table on
-- every batch instead (header). The setting applies to everything the
-- function runs: the release trigger's promotion and the claim, which are
-- index lookups too. JIT off with it: a statement left with only a
-- sequential scan (a small table without a usable index) costs 1e10 with
-- enable_seqscan off, above any jit_above_cost, and would be JIT-compiled at
-- every call (45-85 ms measured for one probe of a small empty table, PostgreSQL 15).
ALTER FUNCTION aq_finish_attempts(text, bigint[], int[], text[], jsonb[], text[], text[], int[], text[], int[], text[], int[], int, int)
  SET enable_seqscan = off
  SET jit = off;
