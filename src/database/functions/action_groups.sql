-- The group's head: the newest record's head while it holds the group.
-- Readers only (operators, views, tests); the worker's statements read the
-- record themselves.
CREATE OR REPLACE VIEW action_groups AS
SELECT l.lock_id,
       (SELECT a.id FROM actions AS a
        WHERE a.holds_group
          AND a.id = (SELECT h.head_id FROM action_group_heads AS h WHERE h.lock_id = l.lock_id ORDER BY h.version DESC LIMIT 1)) AS head_id,
       l.created_at
FROM action_group_locks AS l;
