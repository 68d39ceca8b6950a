-- Promotion: when a head reaches a state that releases its group (done,
-- cancelled, failed under `skip`) or is deleted, the group's next holding
-- action becomes its head in the same transaction, under the group lock.
-- A transaction that acts for a worker (aq_act_for_worker, 004) gets the new
-- heads it can run handed to it in the same row update (aq_lease_actions, 003),
-- so a strictly serial group costs one commit per action, and no other worker
-- is woken for a head that is already taken.

-- Makes the smallest holding action of each given group its head (or hands it
-- to the acting worker), set-based: a finishing batch of N heads costs a few
-- statements, not N. Requires READ COMMITTED: each statement here takes a fresh
-- snapshot after the group locks, so it sees every enqueue committed before.
--
-- p_after[i] is the id of the head that released group p_groups[i]: the next
-- head has a larger id (the head is the group's smallest holding id), so the
-- index scan starts right after it instead of walking the dead index entries
-- that a long-lived deep group leaves behind.
CREATE FUNCTION aq_promote_groups(p_groups bigint[], p_after bigint[]) RETURNS void
  LANGUAGE plpgsql VOLATILE AS $$
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
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'actions: releasing groups (lock_id %) must run in READ COMMITTED, not %',
      p_groups, current_setting('transaction_isolation') USING ERRCODE = '55000';
  END IF;
  -- In lock_id order, like every other writer (a no-op for locks held).
  PERFORM 1 FROM action_groups WHERE lock_id = ANY(p_groups) ORDER BY lock_id FOR UPDATE;
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
    -- Groups left empty.
    IF cardinality(v_locks) < cardinality(v_todo) THEN
      UPDATE action_groups SET head_id = NULL WHERE lock_id = ANY(v_todo) AND lock_id <> ALL(v_locks);
    END IF;
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
    UPDATE action_groups AS g SET head_id = n.id
    FROM unnest(v_locks, v_next) AS n(lock_id, id)
    WHERE g.lock_id = n.lock_id AND (n.id = ANY(v_taken) OR n.id = ANY(v_plain));
    EXIT WHEN cardinality(v_taken) + cardinality(v_plain) = cardinality(v_next);
    v_todo := ARRAY(
      SELECT n.lock_id FROM unnest(v_locks, v_next) AS n(lock_id, id)
      WHERE n.id <> ALL(v_taken) AND n.id <> ALL(v_plain)
    );
  END LOOP;
END $$;

-- Release trigger (statement level, with transition tables) for UPDATE and
-- DELETE: the groups whose head stopped holding them get their next head.
-- One head per group, so each released group appears once.
CREATE FUNCTION aq_actions_after_release() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  v_groups bigint[];
  v_after  bigint[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
    FROM old_rows AS o
    WHERE o.is_head AND o.holds_group AND o.lock_id IS NOT NULL;
  ELSE
    SELECT array_agg(o.lock_id ORDER BY o.lock_id), array_agg(o.id ORDER BY o.lock_id) INTO v_groups, v_after
    FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
    WHERE o.is_head AND o.holds_group AND NOT n.holds_group AND o.lock_id IS NOT NULL;
  END IF;
  IF v_groups IS NOT NULL THEN
    PERFORM aq_promote_groups(v_groups, v_after);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_update_release AFTER UPDATE ON actions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_release();
CREATE TRIGGER actions_after_delete_release AFTER DELETE ON actions
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_release();
