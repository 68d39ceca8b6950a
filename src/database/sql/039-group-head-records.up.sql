-- 039: group rows that do not grow under a held MVCC horizon.
--
-- Where the time went (bench/mvcc-pressure.ts, 800 actions/s into 1 000
-- groups, 32 slots, a session holding an xid for 180 s; CPU of the service's
-- and the producer's backends per attempt, bench/pressure-cost-timeline.ts):
-- 265 + 111 µs in the first 30 s of the hold, 358 + 318 µs in the last 30 s
-- (174 + 85 µs without a hold). The growth was the group row:
-- - `action_groups` had one row per group, updated whenever its head changed:
--   at an enqueue into an empty group, at each promotion, when the group
--   emptied. While the horizon is held no old version may be pruned, so the
--   row's versions pile up (about two per action of the group) and every
--   lookup of the group by primary key walks all of them to find the live
--   one: the insert trigger's lock, the head update after it, the finishing
--   statement's lock, the promotion's lock and head update, the hand-off's
--   read. Measured alone: 107 buffers for a lookup after 100 versions, 407
--   after 400 (2.3 ms), one buffer per version.
-- - The insert trigger's probe for rows inserted earlier by the same
--   statement ("NOT EXISTS a holding row of the group") walked the group's
--   entries of actions_group_holding_idx from the start: one dead entry per
--   row version of every action the group ran since the horizon.
--
-- The design:
-- 1. `action_groups` becomes `action_group_locks`, one row per group that is
--    only ever locked (FOR UPDATE writes no row version), created on first use
--    and deleted by retention as before. A lookup is one index entry, however
--    long the hold.
-- 2. The head moves to `action_group_heads (lock_id, version, head_id)`, append
--    only: a change of head inserts (lock_id, version + 1); every eighth
--    version deletes the eight records before it in one statement (a DELETE
--    per change cost the producer as much as the rest of the record; at most
--    eight old records per group are kept). The current record is found by a
--    backward scan of the primary key from (lock_id, +infinity): the newest
--    entry comes first, the older and dead ones lie behind it and are never
--    visited (7 buffers after 400 versions, 0.08 ms).
-- 3. An emptied group writes no new record: its record keeps naming the head
--    that released it, which no longer holds the group (and is marked, for
--    the producers below). "The group's head" is the record's head if that
--    action still holds the group, else none. A group that empties after each
--    action: one record insert and one heap-only update per action (was two
--    updates of the group row); a deep group: one record per promotion (as
--    before).
-- 4. The insert trigger writes the record of a new head itself, before the
--    row (038's AFTER trigger wrote the group row after it, so that a row
--    skipped by ON CONFLICT DO NOTHING never became a head; the lazy rule of
--    point 3 makes such a record harmless: it names an id that holds
--    nothing). So a later row of the same statement finds the head in the
--    record, and the probe for rows inserted earlier by the statement, which
--    walked the group's dead index entries from the start, is gone; so is one
--    AFTER trigger call per new head.
-- 5. `action_groups` stays, as a view with the same columns (lock_id,
--    head_id, created_at): head_id is the group's head or NULL, as before.
--    INSERT INTO action_groups (lock_id) creates a lock row and its first
--    record (a trigger); DELETE drops lock rows.
--
-- REPEATABLE READ and SERIALIZABLE producers (G3, G4; test/database/ordering):
-- a producer deciding "head" or "not head" from a stale snapshot must fail
-- with a serialization error instead. It did because every change of head
-- wrote the group row it locks. Now every change of head since the
-- snapshot leaves a write on the records that the producer's check meets
-- (aq_check_group_unchanged): a new head or a promotion inserts the next
-- version, an emptying marks the newest record `emptied` (one heap-only
-- update; the only write an emptying makes), and a record is deleted only
-- with every older one (eight at a time), so a deleted version + 1 implies
-- a deleted newest version. Every lock row has a record from the transaction
-- that made it on. Heartbeats, claims and
-- cancel requests write no record, so they fail no producer (a lock on the
-- head row would have). A brand-new group's lock row, committed after the
-- snapshot, still makes its ON CONFLICT raise. READ COMMITTED producers read
-- everything after taking the lock, as before.

ALTER TABLE action_groups RENAME TO action_group_locks;
ALTER TABLE action_group_locks RENAME CONSTRAINT action_groups_pkey TO action_group_locks_pkey;
-- Only locked from now on: no updates to leave room for.
ALTER TABLE action_group_locks SET (fillfactor = 100);

CREATE TABLE action_group_heads (
  lock_id bigint NOT NULL,
  -- 1 for a group's first record, then + 1 per change (not a sequence: two
  -- writers that read the same record write the same key and cannot both win).
  version bigint NOT NULL,
  -- 0: none (the first record of a group made without a head).
  head_id bigint NOT NULL,
  -- Set when the group empties after this head: the one write an emptying
  -- makes, there for REPEATABLE READ producers to see (header); no reader
  -- needs it, since a head that no longer holds the group already means none.
  emptied boolean NOT NULL DEFAULT false,
  CONSTRAINT action_group_heads_pkey PRIMARY KEY (lock_id, version)
);
-- Room on each page for that one update to stay heap-only (HOT).
ALTER TABLE action_group_heads SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);

-- Every lock row has a record from its first transaction on (a group's
-- newest record is never deleted): the ones without a head get a record
-- that names none (0), as the insert trigger's new rows get their head's at once.
INSERT INTO action_group_heads (lock_id, version, head_id, emptied)
SELECT lock_id, 1, coalesce(head_id, 0), head_id IS NULL FROM action_group_locks;
ALTER TABLE action_group_locks DROP COLUMN head_id;

-- The group's head: the newest record's head while it holds the group.
-- Readers only (operators, views, tests); the worker's statements read the
-- record themselves.
CREATE VIEW action_groups AS
SELECT l.lock_id,
       (SELECT a.id FROM actions AS a
        WHERE a.holds_group
          AND a.id = (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = l.lock_id ORDER BY h.version DESC LIMIT 1)) AS head_id,
       l.created_at
FROM action_group_locks AS l;

-- A lock row made through the view gets its record too (the rule above).
CREATE FUNCTION aq_action_groups_instead_of_insert() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
BEGIN
  INSERT INTO action_group_locks (lock_id) VALUES (NEW.lock_id);
  INSERT INTO action_group_heads (lock_id, version, head_id, emptied) VALUES (NEW.lock_id, 1, 0, true);
  RETURN NEW;
END $$;
CREATE TRIGGER action_groups_instead_of_insert INSTEAD OF INSERT ON action_groups
  FOR EACH ROW EXECUTE FUNCTION aq_action_groups_instead_of_insert();

-- Roles that were granted rights on the group rows (SQL producers and
-- readers, docs/sql-producers.md) get the same on the records and the view,
-- so that an upgrade does not make their inserts fail.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS grantee, a.privilege_type
    FROM pg_class AS c CROSS JOIN LATERAL aclexplode(c.relacl) AS a
    WHERE c.oid = 'action_group_locks'::regclass AND a.grantee <> c.relowner
      AND a.privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE')
  LOOP
    EXECUTE format('GRANT %s ON action_group_heads TO %s', r.privilege_type, r.grantee);
    EXECUTE format('GRANT %s ON action_groups TO %s', r.privilege_type, r.grantee);
  END LOOP;
END $$;

-- Makes p_head the head record of group p_lock_id (the caller holding its
-- lock): the newest record, version + 1. In
-- REPEATABLE READ or SERIALIZABLE a record another transaction wrote after
-- the snapshot makes this raise 40001 (header). Every eighth version deletes
-- the eight before it (header, point 2). Two statements, no array: what a
-- promotion of one group uses (the insert trigger has the same inline; 21 µs
-- a call here against 145 µs for the set-based form below with an array of
-- one, which PL/pgSQL re-planned at every call).
CREATE FUNCTION aq_set_group_head(p_lock_id bigint, p_head bigint) RETURNS void
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_version bigint;
  v_written int;
BEGIN
  SELECT h.version INTO v_version FROM action_group_heads AS h WHERE h.lock_id = p_lock_id ORDER BY h.version DESC LIMIT 1;
  v_version := coalesce(v_version, 0) + 1;
  INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (p_lock_id, v_version, p_head)
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_written = ROW_COUNT;
  IF v_written = 0 THEN
    -- READ COMMITTED under the group lock: no other writer can have taken the key.
    RAISE EXCEPTION 'actions: the head record of group % changed under its lock', p_lock_id USING ERRCODE = '40001';
  END IF;
  IF v_version % 8 = 0 THEN
    DELETE FROM action_group_heads AS h WHERE h.lock_id = p_lock_id AND h.version >= v_version - 8 AND h.version < v_version;
  END IF;
END $$;

-- aq_set_group_head for many groups in one statement (the promotion of a
-- finishing batch): p_heads[i] becomes the head of p_locks[i], the caller
-- holding their locks. A generic plan: the form above with arrays was planned
-- anew at every call.
CREATE FUNCTION aq_set_group_heads(p_locks bigint[], p_heads bigint[]) RETURNS void
  LANGUAGE plpgsql VOLATILE
  SET plan_cache_mode = force_generic_plan
  -- A generic plan is made for the table's size at a connection's first call:
  -- index walks only, whatever that size was (as the claim, 023).
  SET enable_seqscan = off
  SET enable_bitmapscan = off
  SET jit = off
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_written int;
BEGIN
  IF cardinality(p_locks) = 1 THEN
    -- One group (a serial chain's every step): the plain form costs a third.
    PERFORM aq_set_group_head(p_locks[1], p_heads[1]);
    RETURN;
  END IF;
  WITH cur AS MATERIALIZED (
    SELECT x.lock_id, x.head_id, v.version
    FROM unnest(p_locks, p_heads) AS x(lock_id, head_id)
    LEFT JOIN LATERAL (
      SELECT h.version FROM action_group_heads AS h WHERE h.lock_id = x.lock_id ORDER BY h.version DESC LIMIT 1
    ) AS v ON true
  ), gone AS (
    DELETE FROM action_group_heads AS h USING cur
    WHERE (coalesce(cur.version, 0) + 1) % 8 = 0
      AND h.lock_id = cur.lock_id AND h.version >= cur.version - 7 AND h.version <= cur.version
  )
  INSERT INTO action_group_heads (lock_id, version, head_id)
  SELECT cur.lock_id, coalesce(cur.version, 0) + 1, cur.head_id FROM cur
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_written = ROW_COUNT;
  IF v_written < cardinality(p_locks) THEN
    RAISE EXCEPTION 'actions: the head record of a group among % changed under its lock', p_locks USING ERRCODE = '40001';
  END IF;
END $$;

-- REPEATABLE READ and SERIALIZABLE only (header): raises 40001 when group
-- p_lock_id's head changed since this transaction's snapshot, whose newest
-- head record is p_version (NULL: none). Every change of head since then
-- either inserted version p_version + 1 (a new head, a promotion: the probe
-- insert below conflicts with a row this snapshot cannot see, 40001) or,
-- when the group emptied, updated record p_version (emptied: the share lock
-- below meets a newer version, 40001); when p_version + 1 was deleted since
-- (eight at a time, with every older record), so was p_version: the share
-- lock meets the delete, 40001. Heartbeats and claims write
-- neither, so a producer queued behind a running head is not failed by them.
-- Both probes are undone at once by their subtransactions: no lock is kept,
-- nothing written. The writers of a group's records hold its lock, as the
-- caller does, so neither probe can meet one in progress. SECURITY DEFINER:
-- a row lock needs UPDATE on the table, which a producer role lacks.
CREATE FUNCTION aq_check_group_unchanged(p_lock_id bigint, p_version bigint) RETURNS void
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER
  SET search_path FROM CURRENT
  AS $$
BEGIN
  BEGIN
    IF p_version IS NOT NULL THEN
      PERFORM 1 FROM action_group_heads AS h WHERE h.lock_id = p_lock_id AND h.version = p_version FOR SHARE;
    END IF;
    INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (p_lock_id, coalesce(p_version, 0) + 1, 0)
    ON CONFLICT DO NOTHING;
    RAISE SQLSTATE 'AQ039';
  EXCEPTION WHEN SQLSTATE 'AQ039' THEN
    NULL;
  END;
END $$;

CREATE OR REPLACE FUNCTION aq_actions_before_insert() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
DECLARE
  v_head     bigint;
  v_recorded bigint;
  v_version  bigint;
  v_emptied  boolean;
BEGIN
  IF NEW.status <> 'pending' THEN
    RAISE EXCEPTION 'actions: a new action must be pending, not %', NEW.status USING ERRCODE = '23514';
  END IF;
  NEW.attempts := 0;
  NEW.charged_attempts := 0;
  NEW.holds_group := true;
  NEW.lease_owner := NULL;
  NEW.lease_expires_at := NULL;
  NEW.attempt_started_at := NULL;
  NEW.started_at := NULL;
  NEW.finished_at := NULL;
  NEW.cancel_requested_at := NULL;
  NEW.quarantined := false;
  NEW.uncharged_losses := 0;
  IF NEW.lock_id IS NULL THEN
    NEW.id := nextval('actions_id_seq');
    NEW.is_head := true;
    RETURN NEW;
  END IF;
  -- The group's lock row, created on first use; loops because retention
  -- deletes empty groups' rows (004). Inline, not 038's aq_lock_group: a call
  -- with its SET clause cost a tenth of a bulk INSERT ... SELECT.
  LOOP
    PERFORM 1 FROM action_group_locks WHERE lock_id = NEW.lock_id FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO action_group_locks (lock_id) VALUES (NEW.lock_id) ON CONFLICT DO NOTHING;
  END LOOP;
  -- Read after the lock (a statement of its own, so READ COMMITTED sees what
  -- the previous holder committed): the newest record, and whether its head
  -- holds the group.
  SELECT r.head_id, r.version, r.emptied, a.id INTO v_recorded, v_version, v_emptied, v_head
  FROM (SELECT h.head_id, h.version, h.emptied FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id ORDER BY h.version DESC LIMIT 1) AS r
  LEFT JOIN actions AS a ON a.id = r.head_id AND a.holds_group;
  -- (No record at all: a lock row this statement just made, an empty group.)
  IF v_head IS NULL AND v_emptied IS FALSE THEN
    -- The recorded head no longer holds, and no promotion has marked its
    -- group emptied: a release earlier in this same statement may have left
    -- an action queued behind it for the statement's end to promote (a CTE
    -- that cancels the head and inserts, a MERGE), or the record names a
    -- row ON CONFLICT skipped. The first holding action after the recorded
    -- head: a walk of a few index entries, since it is the group's latest.
    SELECT a.id INTO v_head FROM actions AS a
    WHERE a.lock_id = NEW.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > v_recorded
    ORDER BY a.lock_id, a.id LIMIT 1;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    PERFORM aq_check_group_unchanged(NEW.lock_id, v_version);
  END IF;
  -- The id is taken only now, under the group lock (G4, DESIGN.md trap 4).
  NEW.id := nextval('actions_id_seq');
  NEW.is_head := v_head IS NULL;
  IF NEW.is_head THEN
    -- Written before the row (header, point 4): a later row of this statement
    -- reads it, and a row that ends up not inserted leaves a record naming an
    -- id that holds nothing, which means "no head". aq_set_group_head inline,
    -- with the version read above.
    v_version := coalesce(v_version, 0) + 1;
    INSERT INTO action_group_heads (lock_id, version, head_id) VALUES (NEW.lock_id, v_version, NEW.id)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'actions: the head record of group % changed under its lock', NEW.lock_id USING ERRCODE = '40001';
    END IF;
    IF v_version % 8 = 0 THEN
      DELETE FROM action_group_heads AS h WHERE h.lock_id = NEW.lock_id AND h.version >= v_version - 8 AND h.version < v_version;
    END IF;
  END IF;
  RETURN NEW;
END $$;

-- The record is written by the insert trigger above (038 did it in an AFTER trigger).
DROP TRIGGER actions_after_insert_head ON actions;
DROP FUNCTION aq_actions_after_insert_head();
DROP FUNCTION aq_lock_group(bigint);

CREATE OR REPLACE FUNCTION aq_actions_after_truncate() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
  AS $$
BEGIN
  DELETE FROM action_group_heads;
  DELETE FROM action_group_locks;
  RETURN NULL;
END $$;

-- The promotion, the finishing statement and the end of lost attempts: the
-- lock rows and head records above; otherwise as 031/038 left them.

CREATE OR REPLACE FUNCTION aq_promote_groups(p_groups bigint[], p_after bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
DECLARE
  v_worker text := coalesce(current_setting('aq.worker', true), '');
  v_lease  int  := coalesce(nullif(current_setting('aq.handoff_lease_ms', true), ''), '0')::int;
  v_types  text[];
  v_caps   int[];
  v_todo   bigint[] := p_groups;
  v_locks  bigint[];
  v_next   bigint[];
  v_taken  bigint[];
  v_plain  bigint[];
  v_emptied bigint[] := '{}';
  v_group  bigint;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'actions: releasing groups (lock_id %) must run in READ COMMITTED, not %',
      p_groups, current_setting('transaction_isolation') USING ERRCODE = '55000';
  END IF;
  -- In lock_id order, like every other writer (a no-op for locks held).
  PERFORM 1 FROM action_group_locks WHERE lock_id = ANY(p_groups) ORDER BY lock_id FOR UPDATE;
  IF v_worker <> '' AND v_lease > 0 THEN
    v_types := current_setting('aq.handoff_types')::text[];
    v_caps := current_setting('aq.handoff_caps')::int[];
  END IF;
  WHILE cardinality(v_todo) > 0 LOOP
    -- The next holding action of each group. ORDER BY lock_id, id matches
    -- actions_group_holding_idx exactly; with ORDER BY id alone the planner may
    -- walk the primary key through every finished row of a deep group.
    SELECT array_agg(g.lock_id), array_agg(x.id) INTO v_locks, v_next
    FROM unnest(p_groups, p_after) AS g(lock_id, after_id)
    CROSS JOIN LATERAL (
      SELECT a.id FROM actions AS a
      WHERE a.lock_id = g.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id > g.after_id
      ORDER BY a.lock_id, a.id LIMIT 1
    ) AS x
    WHERE g.lock_id = ANY(v_todo);
    v_locks := coalesce(v_locks, '{}');
    v_next := coalesce(v_next, '{}');
    -- A group left empty keeps its head record, which names the head that
    -- released it and no longer holds the group (039); it is marked below.
    v_emptied := v_emptied || ARRAY(SELECT t.lock_id FROM unnest(v_todo) AS t(lock_id) WHERE t.lock_id <> ALL(v_locks));
    EXIT WHEN cardinality(v_next) = 0;
    -- Hand-off: the acting worker leases the new heads it can run now.
    v_taken := '{}';
    IF v_types IS NOT NULL THEN
      SELECT coalesce(array_agg(l.id), '{}') INTO v_taken
      FROM aq_lease_actions(v_next, v_worker, v_lease, v_types, v_caps) AS l;
    END IF;
    -- "AND holds_group" is re-checked on the newest row version: a concurrent
    -- cancel of a candidate (which does not take the group lock, since it was
    -- not the head) makes the update miss it, and the loop picks that group's
    -- next action instead of crowning a cancelled row.
    v_plain := '{}';
    IF cardinality(v_taken) < cardinality(v_next) THEN
      WITH t AS (
        UPDATE actions SET is_head = true
        WHERE id = ANY(v_next) AND id <> ALL(v_taken) AND holds_group
        RETURNING id
      )
      SELECT coalesce(array_agg(t.id), '{}') INTO v_plain FROM t;
    END IF;
    IF cardinality(v_plain) > 0 THEN
      PERFORM aq_wake_workers();
    END IF;
    PERFORM aq_set_group_heads(ARRAY(SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id) WHERE n.id = ANY(v_taken) OR n.id = ANY(v_plain) ORDER BY n.lock_id),
                               ARRAY(SELECT n.id FROM unnest(v_locks, v_next) AS n(lock_id, id) WHERE n.id = ANY(v_taken) OR n.id = ANY(v_plain) ORDER BY n.lock_id));
    EXIT WHEN cardinality(v_taken) + cardinality(v_plain) = cardinality(v_next);
    v_todo := ARRAY(
      SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id)
      WHERE n.id <> ALL(v_taken) AND n.id <> ALL(v_plain)
    );
  END LOOP;
  -- The emptying's one write, for REPEATABLE READ producers
  -- (aq_check_group_unchanged): a heap-only update of the newest record.
  FOREACH v_group IN ARRAY v_emptied LOOP
    UPDATE action_group_heads AS h SET emptied = true
    WHERE h.lock_id = v_group AND NOT h.emptied
      AND h.version = (SELECT n.version FROM action_group_heads AS n WHERE n.lock_id = v_group ORDER BY n.version DESC LIMIT 1);
  END LOOP;
END $function$
;

CREATE OR REPLACE FUNCTION aq_finish_attempts(p_worker text, p_ids bigint[], p_attempts integer[], p_next_status text[], p_results jsonb[], p_errors text[], p_stacks text[], p_delays_ms integer[], p_outcomes text[], p_charges integer[], p_types text[], p_caps integer[], p_lease_ms integer, p_claim_limit integer)
 RETURNS TABLE(kind text, leased aq_leased_action)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET search_path FROM CURRENT
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_done     bigint[];
  v_released bigint[];
  v_deferred bigint[];
  v_handed   int := 0;
BEGIN
  -- Lock the groups this batch releases in lock_id order (the order every
  -- writer uses), skipping those a producer holds; their attempts are deferred.
  WITH releasing AS MATERIALIZED (
    SELECT a.id, a.lock_id
    FROM actions AS a
    JOIN unnest(p_ids, p_next_status) AS t(id, next_status) ON a.id = t.id
    WHERE a.lock_id IS NOT NULL AND a.lease_owner = p_worker
      AND (t.next_status IN ('done', 'cancelled') OR a.cancel_requested_at IS NOT NULL
           OR (t.next_status = 'failed' AND a.on_failure = 'skip'))
  ),
  locked AS MATERIALIZED (
    SELECT g.lock_id FROM action_group_locks AS g
    WHERE g.lock_id IN (SELECT r.lock_id FROM releasing AS r)
    ORDER BY g.lock_id
    FOR UPDATE SKIP LOCKED
  )
  SELECT coalesce(array_agg(r.id), '{}') INTO v_deferred
  FROM releasing AS r WHERE r.lock_id NOT IN (SELECT l.lock_id FROM locked AS l);

  PERFORM aq_act_for_worker(p_worker, CASE WHEN cardinality(p_types) > 0 THEN p_lease_ms ELSE 0 END, p_types, p_caps);
  WITH input AS (
    SELECT * FROM unnest(p_ids, p_attempts, p_next_status, p_results, p_errors, p_stacks, p_delays_ms, p_outcomes, p_charges)
      AS t(id, attempt, next_status, result, error, stack, delay_ms, outcome, charge)
    WHERE t.id <> ALL(v_deferred)
  ),
  ended AS (
    UPDATE actions AS a
    SET status           = CASE WHEN a.cancel_requested_at IS NOT NULL AND i.next_status <> 'done'
                                THEN 'cancelled' ELSE i.next_status END,
        result           = CASE WHEN i.next_status = 'done' THEN i.result ELSE a.result END,
        last_error       = CASE WHEN i.outcome IN ('error', 'timeout') THEN i.error ELSE a.last_error END,
        finished_at      = CASE WHEN i.next_status = 'pending' AND a.cancel_requested_at IS NULL
                                THEN NULL ELSE clock_timestamp() END,
        run_at           = CASE WHEN i.next_status = 'pending' THEN now() + i.delay_ms * interval '1 millisecond'
                                ELSE a.run_at END,
        charged_attempts = a.charged_attempts + i.charge,
        -- A release says nothing about the action: quarantine stays as it was.
        quarantined      = a.quarantined AND i.outcome = 'released',
        uncharged_losses = CASE WHEN i.outcome = 'released' THEN a.uncharged_losses ELSE 0 END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM input AS i
    -- The fence. "lease_owner = me" implies running (actions_lease_iff_running);
    -- status is not tested, so the planner drives the join from the batch by
    -- primary key.
    WHERE a.id = i.id AND a.lease_owner = p_worker AND a.attempts = i.attempt
    RETURNING a.id, a.lock_id, a.holds_group, a.status, i.attempt, i.outcome, i.error, i.stack, a.attempt_started_at
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error, error_stack)
    SELECT e.id, e.lock_id, e.attempt, p_worker, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.status = 'cancelled' AND e.outcome <> 'done' THEN 'cancelled' ELSE e.outcome END, e.error, e.stack
    FROM ended AS e
    RETURNING action_id
  )
  SELECT (SELECT array_agg(t.action_id) FROM traced AS t),
         (SELECT array_agg(DISTINCT e.lock_id) FROM ended AS e WHERE NOT e.holds_group AND e.lock_id IS NOT NULL)
  INTO v_done, v_released;
  v_done := coalesce(v_done, '{}');

  RETURN QUERY
  SELECT CASE WHEN f.id = ANY(v_deferred) THEN 'deferred' ELSE 'finished' END,
         ROW(f.id, NULL, NULL, NULL, f.attempt, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::aq_leased_action
  FROM unnest(p_ids, p_attempts, p_outcomes) AS f(id, attempt, outcome)
  WHERE f.id = ANY(v_done) OR f.id = ANY(v_deferred)
     OR EXISTS (SELECT 1 FROM action_attempts AS x      -- recorded by an earlier send of this
                WHERE x.action_id = f.id AND x.attempt = f.attempt AND x.worker_id = p_worker AND x.outcome = f.outcome);

  IF v_released IS NOT NULL THEN
    -- The new heads the promotion handed to p_worker (primary key lookups).
    RETURN QUERY
    SELECT 'claimed', ROW(a.id, a.lock_id, a.type, a.payload, a.attempts, a.charged_attempts, a.max_attempts,
                          a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.quarantined, a.lease_expires_at)::aq_leased_action
    FROM actions AS a
    -- The newest head record of each group (039: one backward index probe),
    -- then the heads by primary key. Not a join with a condition on status:
    -- a generic plan may drive it from actions_running_idx instead, whose
    -- dead entries a held horizon piles up (8 455 buffers a statement, seen).
    -- "lease_owner = me" implies running (actions_lease_iff_running).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id FROM unnest(v_released) AS r(lock_id)
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.lease_owner = p_worker;
    GET DIAGNOSTICS v_handed = ROW_COUNT;
  END IF;
  -- Fill the slots still free with an ordinary claim, in this same commit
  -- (p_claim_limit counted every attempt of the batch as ending; a deferred
  -- one still holds its slot).
  IF p_claim_limit - v_handed - cardinality(v_deferred) > 0 AND cardinality(p_types) > 0 THEN
    RETURN QUERY
    SELECT 'claimed', c FROM aq_claim_actions(p_worker, p_types, p_caps, p_claim_limit - v_handed - cardinality(v_deferred), p_lease_ms) AS c;
  END IF;
END $function$
;

CREATE OR REPLACE FUNCTION aq_end_lost_attempts(p_ids bigint[], p_culprit bigint, p_outcome text, p_reason text, p_delay_ms integer, p_only_expired boolean)
 RETURNS TABLE(action_id bigint, attempt integer, worker_id text, status text, charged integer)
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH lost AS MATERIALIZED (
    SELECT a.id, a.attempts, a.lease_owner, a.attempt_started_at, c.charge,
           CASE WHEN a.cancel_requested_at IS NOT NULL THEN 'cancelled'
                WHEN c.charge > 0 AND a.charged_attempts + c.charge >= a.max_attempts THEN 'failed'
                ELSE 'pending' END AS next_status
    FROM actions AS a
    CROSS JOIN LATERAL (
      SELECT CASE WHEN p_culprit IS NULL
                  THEN least(aq_loss_charge(a.quarantined, a.uncharged_losses), greatest(a.max_attempts - a.charged_attempts, 1))
                  WHEN a.id = p_culprit
                  THEN least(1 + a.uncharged_losses, greatest(a.max_attempts - a.charged_attempts, 1))
                  ELSE 0 END AS charge
    ) AS c
    WHERE a.id = ANY(p_ids) AND a.status = 'running' AND (NOT p_only_expired OR a.lease_expires_at < now())
    FOR UPDATE OF a
  ),
  ended AS (
    UPDATE actions AS a
    SET status           = l.next_status,
        finished_at      = CASE WHEN l.next_status = 'pending' THEN NULL ELSE clock_timestamp() END,
        run_at           = CASE WHEN l.next_status = 'pending' THEN now() + p_delay_ms * interval '1 millisecond' ELSE a.run_at END,
        charged_attempts = a.charged_attempts + l.charge,
        last_error       = CASE WHEN p_culprit IS NULL OR a.id = p_culprit THEN p_reason ELSE a.last_error END,
        -- A suspect from its second loss in a row on.
        quarantined      = CASE WHEN p_culprit IS NULL THEN a.quarantined OR a.uncharged_losses + 1 >= 2
                                WHEN a.id = p_culprit THEN true ELSE a.quarantined END,
        uncharged_losses = CASE WHEN p_culprit IS NULL THEN (CASE WHEN l.charge > 0 THEN 0 ELSE a.uncharged_losses + 1 END)
                                WHEN a.id = p_culprit THEN 0 ELSE a.uncharged_losses END,
        lease_owner      = NULL,
        lease_expires_at = NULL
    FROM lost AS l
    WHERE a.id = l.id
    RETURNING a.id, a.lock_id, l.attempts, l.lease_owner, l.attempt_started_at, a.status, l.charge, a.uncharged_losses, a.quarantined
  ),
  traced AS (
    INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
    SELECT e.id, e.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, clock_timestamp(),
           CASE WHEN e.id = p_culprit THEN 'error' ELSE p_outcome END,
           CASE WHEN p_culprit IS NULL OR e.id = p_culprit THEN p_reason
                ELSE 'released: ' || p_reason END
             || CASE WHEN p_culprit IS NOT NULL THEN ''
                     WHEN e.charge > 0 THEN ' (charged: lost again as a suspect)'
                     WHEN e.quarantined THEN ' (not charged; lost ' || e.uncharged_losses || ' times in a row: now a suspect)'
                     ELSE ' (not charged; run again at once)' END
    FROM ended AS e
    RETURNING action_id
  )
  SELECT e.id, e.attempts, e.lease_owner, e.status, e.charge FROM ended AS e;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- An attempt that ended for good released its group, and the release trigger
  -- (at the end of the statement above) made the next action head: it too
  -- waits p_delay_ms, for the fenced instance to be gone.
  IF p_delay_ms > 0 THEN
    UPDATE actions AS a
    SET run_at = greatest(a.run_at, now() + p_delay_ms * interval '1 millisecond')
    -- The newest head record of each released group (039), then the heads by
    -- primary key (as in aq_finish_attempts: never a walk of a status index).
    WHERE a.id = ANY(ARRAY(
            SELECT g.head_id
            FROM (SELECT DISTINCT x.lock_id FROM actions AS x WHERE x.id = ANY(p_ids) AND NOT x.holds_group AND x.lock_id IS NOT NULL) AS r
            CROSS JOIN LATERAL (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = r.lock_id ORDER BY h.version DESC LIMIT 1) AS g))
      AND a.status = 'pending';
  END IF;
  PERFORM aq_wake_workers();
END $function$
;
