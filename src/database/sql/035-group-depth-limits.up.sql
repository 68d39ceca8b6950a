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
-- When: once per INSERT statement, after its rows are in (a statement-level
-- AFTER trigger reading the statement's rows from a transition table). The
-- depth a row meets is the group's holding rows older than the statement's
-- first row of that group, plus the rows of the same statement ahead of it in
-- id order (a batch counts its own rows, so it is refused as a whole). The
-- first row, in id order, that meets its limit raises the error above; the
-- statement, and so the batch, is undone.
--
-- Race-safe: by then 004's actions_before_insert has locked every group the
-- statement wrote to (the locks last until the transaction ends), so no other
-- producer can add to those groups, and ids in a group are taken under its
-- lock (G4): the rows older than the statement's are exactly the rows with a
-- smaller id. Under READ COMMITTED the count (a new statement in a VOLATILE
-- function) takes a snapshot after the locks were granted, so it sees every
-- committed row of the group: two concurrent inserts at N-1 cannot both pass.
-- A REPEATABLE READ producer counts with its own snapshot and may overshoot by
-- the rows committed after it started (documented).
--
-- A repeated idempotency key skipped by ON CONFLICT DO NOTHING inserts no row,
-- so it is not in the transition table: the producer gets its existing action,
-- never a refusal.
--
-- Cost, and why not a row trigger (issue 21): the first version was a BEFORE
-- INSERT row trigger, one PL/pgSQL call and one probe of this table per grouped
-- row even with no limit set: +20 to +45 % on an SQL bulk insert. Here a
-- statement with no limit configured pays one probe of this (empty) table and
-- the transition table's capture of its rows; measured with
-- `node dist/bench/depth-trigger-cost.js` (docs/operator-controls.md, "Cost").
-- With a limit set, each group of the statement is counted once (stopping at
-- the largest limit that applies to it, actions_group_holding_idx) instead of
-- once per row. A WHEN clause cannot look at another table, and folding the
-- check into 004's row trigger would still pay a probe per row.

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

CREATE FUNCTION aq_actions_after_insert_depth() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path FROM CURRENT
AS $$
DECLARE
  v_row record;
BEGIN
  -- No limit configured: nothing to count.
  IF NOT EXISTS (SELECT 1 FROM action_group_depth_limits) THEN
    RETURN NULL;
  END IF;
  WITH limits AS (
    -- The limit of each type the statement inserted into a group: its own
    -- row, else the global one (looked up once per type, not per row).
    SELECT t.type, lim.max_depth, lim.action_type AS limit_type
    FROM (SELECT DISTINCT n.type FROM added_rows AS n WHERE n.lock_id IS NOT NULL) AS t
    CROSS JOIN LATERAL (
      SELECT l.max_depth, l.action_type
      FROM action_group_depth_limits AS l
      WHERE l.action_type = t.type OR l.action_type IS NULL
      ORDER BY l.action_type NULLS LAST
      LIMIT 1
    ) AS lim
  ), added AS (
    -- Each grouped row of the statement with its limit, and how many rows of
    -- the statement precede it in its group.
    SELECT n.id, n.lock_id, n.group_key, l.max_depth, l.limit_type,
           row_number() OVER (PARTITION BY n.lock_id ORDER BY n.id) - 1 AS ahead_in_statement
    FROM added_rows AS n
    JOIN limits AS l ON l.type = n.type
    WHERE n.lock_id IS NOT NULL AND n.holds_group
  ), groups AS (
    SELECT lock_id, min(id) AS first_id, max(max_depth) AS cap FROM added GROUP BY lock_id
  ), held AS (
    -- The group's holding rows older than the statement, counted up to the
    -- largest limit any of its new rows meets, plus one: past the cap the
    -- refusal's message says "at least".
    SELECT g.lock_id, g.cap, (
      SELECT count(*) FROM (
        SELECT 1 FROM actions AS a
        WHERE a.lock_id = g.lock_id AND a.holds_group AND a.lock_id IS NOT NULL AND a.id < g.first_id
        LIMIT g.cap + 1
      ) AS older
    ) AS older_count
    FROM groups AS g
  )
  SELECT a.id, a.lock_id, a.group_key, a.max_depth, a.limit_type, h.older_count + a.ahead_in_statement + 1 AS would_hold,
         h.older_count > h.cap AS capped
  INTO v_row
  FROM added AS a JOIN held AS h USING (lock_id)
  WHERE h.older_count + a.ahead_in_statement >= a.max_depth
  ORDER BY a.id
  LIMIT 1;
  IF FOUND THEN
    -- What the group would hold with this row (the rows ahead of it in the statement
    -- count); "at least" when the count of older rows stopped at its cap.
    RAISE EXCEPTION 'actions: group % would hold % unfinished actions, over the max group depth (% limit: %)',
      coalesce(quote_literal(v_row.group_key), v_row.lock_id::text), CASE WHEN v_row.capped THEN 'at least ' ELSE '' END || v_row.would_hold,
      CASE WHEN v_row.limit_type IS NULL THEN 'global' ELSE format('type %L', v_row.limit_type) END, v_row.max_depth
      USING ERRCODE = '53400',
            CONSTRAINT = 'action_group_depth_limit',
            HINT = 'Retry later, once the group has drained, or raise the limit: PUT /group-depth-limits/... or UPDATE action_group_depth_limits.';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER actions_after_insert_depth AFTER INSERT ON actions
  REFERENCING NEW TABLE AS added_rows
  FOR EACH STATEMENT EXECUTE FUNCTION aq_actions_after_insert_depth();
