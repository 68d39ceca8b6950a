-- Maximum group depth (issue 21): backpressure instead of an unbounded backlog.
-- An insert into a group that already holds N unfinished actions is refused,
-- for REST and SQL producers alike (G5, G10), with SQLSTATE 53400
-- (configuration_limit_exceeded) and the constraint name
-- action_group_depth_limit; the API answers 429 naming the limit.
--
-- The limits are data, shared by every instance and changed at runtime:
--   INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES (NULL, 1000);      -- every type
--   INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES ('invoice.send', 50);
-- or PUT /group-depth-limits/global and /group-depth-limits/types/{type}
-- (docs/operator-controls.md). A type's own row wins over the global one.
--
-- What counts: the group's rows that hold it (holds_group: pending, running,
-- and failed under `block`, which still waits for an operator), whatever
-- their type. The limit that applies is the one of the type being inserted.
--
-- Race-safe: the trigger runs after 004's actions_before_insert (triggers of
-- one event fire in name order, and "actions_before_insert" sorts before
-- "actions_before_insert_depth"), so the group row is locked when it counts.
-- Every insert into the group waits for that lock, and under READ COMMITTED
-- the count (a new statement in a VOLATILE function) takes a snapshot after
-- the lock was granted, so it sees every committed row of the group: two
-- concurrent inserts at N-1 cannot both pass. Rows inserted earlier by the
-- same statement (a batch) are counted too, so a batch is refused as a whole.
-- A REPEATABLE READ producer counts with its own snapshot and may overshoot
-- by the rows committed after it (documented).
--
-- Cost: ungrouped inserts never enter PL/pgSQL (WHEN clause). A grouped insert
-- pays one probe of this small table; the count runs only when a limit
-- applies and stops after max_depth rows (actions_group_holding_idx).

CREATE TABLE action_group_depth_limits (
  -- NULL: the global limit (every type without a row of its own).
  action_type text,
  max_depth   integer     NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT action_group_depth_limits_max_depth_positive CHECK (max_depth >= 1),
  CONSTRAINT action_group_depth_limits_type_length CHECK (char_length(action_type) BETWEEN 1 AND 200)
);
-- One row per scope; '' stands for the global row (a type is never empty).
CREATE UNIQUE INDEX action_group_depth_limits_scope_uq ON action_group_depth_limits ((coalesce(action_type, '')));

CREATE FUNCTION aq_actions_before_insert_depth() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
DECLARE
  v_limit integer;
  v_type  text;
  v_depth integer;
BEGIN
  SELECT l.max_depth, l.action_type INTO v_limit, v_type
  FROM action_group_depth_limits AS l
  WHERE l.action_type = NEW.type OR l.action_type IS NULL
  ORDER BY l.action_type NULLS LAST
  LIMIT 1;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  -- A repeated idempotency key inserts nothing (ON CONFLICT DO NOTHING): the
  -- producer gets its existing action, never a refusal.
  IF NEW.idempotency_key IS NOT NULL AND EXISTS (SELECT 1 FROM actions WHERE idempotency_key = NEW.idempotency_key) THEN
    RETURN NEW;
  END IF;
  SELECT count(*) INTO v_depth FROM (
    SELECT 1 FROM actions
    WHERE lock_id = NEW.lock_id AND holds_group AND lock_id IS NOT NULL
    LIMIT v_limit
  ) AS held;
  IF v_depth >= v_limit THEN
    RAISE EXCEPTION 'actions: group % would hold % unfinished actions, over the max group depth (% limit: %)',
      coalesce(quote_literal(NEW.group_key), NEW.lock_id::text), v_depth + 1,
      CASE WHEN v_type IS NULL THEN 'global' ELSE format('type %L', v_type) END, v_limit
      USING ERRCODE = '53400',
            CONSTRAINT = 'action_group_depth_limit',
            HINT = 'Retry later, once the group has drained, or raise the limit: PUT /group-depth-limits/... or UPDATE action_group_depth_limits.';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER actions_before_insert_depth BEFORE INSERT ON actions
  FOR EACH ROW WHEN (NEW.lock_id IS NOT NULL)
  EXECUTE FUNCTION aq_actions_before_insert_depth();
