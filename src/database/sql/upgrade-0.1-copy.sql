-- Upgrade from release 0.1, step 2 of 2: copies the 0.1 rows (put aside in
-- schema aq_release_0_1 by upgrade-0.1-aside.sql) into the tables of the
-- baseline chain 001..010, which ran just before in the same transaction, then
-- drops them. Written against the schema of 010 and frozen with it: later
-- migrations convert these rows like any other.
--
-- Kept: every action with its id (so group order and commit order, G3/G4),
-- status, attempts, result, error, idempotency key and lease; every group row;
-- every trace row; the id sequence's position (no id is ever reused).

-- The rows are copied as they are: the triggers that would renumber them,
-- make them pending and promote heads must not fire.
ALTER TABLE actions DISABLE TRIGGER USER;

INSERT INTO actions (
  id, lock_id, type, payload, status, is_head, holds_group, attempts, charged_attempts, max_attempts,
  on_failure, run_at, created_at, started_at, finished_at, result, last_error, idempotency_key, retry_of,
  lease_owner, lease_expires_at, attempt_started_at
)
SELECT o.id, o.lock_id, o.type, o.payload, o.status, o.is_head, o.holds_group, o.attempts,
       -- 0.1 counted every attempt against max_attempts (a release raised
       -- max_attempts by one instead), so the budget left stays what it was.
       -- A running attempt is charged when it ends, as 0.2 does.
       CASE WHEN o.status = 'running' THEN o.attempts - 1 ELSE o.attempts END,
       o.max_attempts, o.on_failure, o.run_at, o.created_at, o.started_at, o.finished_at, o.result,
       o.last_error, o.idempotency_key, o.retry_of,
       -- A running action keeps its lease: its 0.1 holder is stopped (the
       -- upgrade refuses to run while a 0.1 instance is connected), and the
       -- reaper returns the action to pending once the lease has expired, never
       -- before, so it never runs twice at once.
       o.lease_owner, o.lease_expires_at, o.attempt_started_at
FROM aq_release_0_1.actions AS o
ORDER BY o.id;

-- Heads as the 0.2 triggers define them, recomputed rather than trusted: in
-- each group the holding action with the smallest id; rows without a group
-- are heads while they hold.
UPDATE actions SET holds_group = aq_holds_group(status, on_failure)
WHERE holds_group IS DISTINCT FROM aq_holds_group(status, on_failure);
WITH heads AS (
  SELECT min(h.id) AS id FROM actions AS h WHERE h.holds_group AND h.lock_id IS NOT NULL GROUP BY h.lock_id
)
UPDATE actions AS a
SET is_head = NOT a.is_head
WHERE a.is_head IS DISTINCT FROM (a.holds_group AND (a.lock_id IS NULL OR a.id IN (SELECT id FROM heads)));

ALTER TABLE actions ENABLE TRIGGER USER;

-- Every group row, plus one for any group that holds actions but lost its row.
INSERT INTO action_groups (lock_id, head_id, created_at)
SELECT k.lock_id,
       (SELECT a.id FROM actions AS a WHERE a.lock_id = k.lock_id AND a.holds_group AND a.is_head),
       coalesce(g.created_at, now())
FROM (
  SELECT o.lock_id FROM aq_release_0_1.action_groups AS o
  UNION
  SELECT a.lock_id FROM actions AS a WHERE a.holds_group AND a.lock_id IS NOT NULL
) AS k
LEFT JOIN aq_release_0_1.action_groups AS g ON g.lock_id = k.lock_id
ORDER BY k.lock_id;

INSERT INTO action_attempts (id, action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
OVERRIDING SYSTEM VALUE
SELECT t.id, t.action_id, t.lock_id, t.attempt, t.worker_id, t.started_at, t.finished_at, t.outcome, t.error
FROM aq_release_0_1.action_attempts AS t
ORDER BY t.id;

-- Sequences continue where 0.1's stopped (ids of deleted rows included).
SELECT setval('actions_id_seq', s.last_value, s.is_called) FROM aq_release_0_1.actions_id_seq AS s;
SELECT setval(pg_get_serial_sequence('action_attempts', 'id'), coalesce(max(t.id), 0) + 1, false)
FROM action_attempts AS t;

DROP SCHEMA aq_release_0_1 CASCADE;

-- Work that is due now, for the workers that start after the upgrade.
SELECT aq_wake_workers();
