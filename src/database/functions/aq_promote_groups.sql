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
    IF cardinality(v_next) = 1 AND (v_next[1] = ANY(v_taken) OR v_next[1] = ANY(v_plain)) THEN
      -- One group (a serial chain's every step): aq_set_group_heads would
      -- call this for it; a nested call less (each enters and leaves the
      -- function's SET clauses).
      PERFORM aq_set_group_head(v_locks[1], v_next[1]);
    ELSE
      PERFORM aq_set_group_heads(ARRAY(SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id) WHERE n.id = ANY(v_taken) OR n.id = ANY(v_plain) ORDER BY n.lock_id),
                                 ARRAY(SELECT n.id FROM unnest(v_locks, v_next) AS n(lock_id, id) WHERE n.id = ANY(v_taken) OR n.id = ANY(v_plain) ORDER BY n.lock_id));
    END IF;
    EXIT WHEN cardinality(v_taken) + cardinality(v_plain) = cardinality(v_next);
    v_todo := ARRAY(
      SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id)
      WHERE n.id <> ALL(v_taken) AND n.id <> ALL(v_plain)
    );
  END LOOP;
  -- The emptying's one write, for REPEATABLE READ producers
  -- (aq_check_group_unchanged): a heap-only update of the newest record.
  -- A statement per group: the one-statement join over all emptied groups
  -- read 39 -> 62 buffers per finish after 500 actions under a held MVCC
  -- horizon (test/database/held-horizon-costs.db-spec.ts), where this point
  -- lookup stays flat.
  FOREACH v_group IN ARRAY v_emptied LOOP
    UPDATE action_group_heads AS h SET emptied = true
    WHERE h.lock_id = v_group AND NOT h.emptied
      AND h.version = (SELECT n.version FROM action_group_heads AS n WHERE n.lock_id = v_group ORDER BY n.version DESC LIMIT 1);
  END LOOP;
END $function$;
