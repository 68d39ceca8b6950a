-- The group depth limit (action_group_depth_limits): after each insert
-- statement, refuses it when a group it added to is deeper than its limit
-- (the added rows are a transition table, so a batch is checked once per group).
CREATE OR REPLACE FUNCTION aq_actions_after_insert_depth()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path FROM CURRENT
AS $function$
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
END $function$;
