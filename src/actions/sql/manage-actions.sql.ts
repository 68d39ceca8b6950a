import { ACTION_COLUMNS } from './action-columns.sql';

/** One action. `$1::bigint` id. */
export const SELECT_ACTION_SQL = `SELECT ${ACTION_COLUMNS} FROM actions WHERE id = $1::bigint`;

/** The trace of one action, oldest first. `$1::bigint` id. */
export const SELECT_TRACE_SQL = `
SELECT attempt, worker_id, started_at, finished_at, outcome, error
FROM action_attempts WHERE action_id = $1::bigint ORDER BY id`;

/**
 * A page of actions in id order. `$1::text` status, `$3::text` type (each null
 * = any), `$4::bigint` after this id, `$5::int` limit. Run unnamed, so the plan
 * is made for the actual values and the partial status indexes
 * (actions_pending_idx, actions_failed_idx, ...) serve a status filter;
 * `done` walks the primary key. `$2` is unused here (see LIST_GROUP_ACTIONS_SQL).
 */
export const LIST_ACTIONS_SQL = `
SELECT ${ACTION_COLUMNS} FROM actions
WHERE ($1::text IS NULL OR status = $1::text)
  AND $2::bigint IS NULL
  AND ($3::text IS NULL OR type = $3::text)
  AND id > $4::bigint
ORDER BY actions.id -- the bigint column, not the id::text output column
LIMIT $5::int`;

/**
 * A page of one group's actions in id order: the holding rows come from
 * actions_group_holding_idx, the finished ones from actions_group_finished_idx.
 * Same parameters as LIST_ACTIONS_SQL, with `$2::bigint` the lock id.
 */
export const LIST_GROUP_ACTIONS_SQL = `
SELECT ${ACTION_COLUMNS} FROM (
  (SELECT * FROM actions
   WHERE lock_id = $2::bigint AND lock_id IS NOT NULL AND holds_group AND id > $4::bigint
     AND ($1::text IS NULL OR status = $1::text) AND ($3::text IS NULL OR type = $3::text)
   ORDER BY lock_id, id LIMIT $5::int)
  UNION ALL
  (SELECT * FROM actions
   WHERE lock_id = $2::bigint AND lock_id IS NOT NULL AND NOT holds_group AND id > $4::bigint
     AND ($1::text IS NULL OR status = $1::text) AND ($3::text IS NULL OR type = $3::text)
   ORDER BY lock_id, id LIMIT $5::int)
) AS a
ORDER BY a.id -- the bigint column, not the id::text output column
LIMIT $5::int`;

/**
 * Cancels a pending or failed action. If it was its group's head, the
 * release trigger promotes the next one. `$1::bigint` id.
 */
export const CANCEL_ACTION_SQL = `
UPDATE actions SET status = 'cancelled', finished_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL
WHERE id = $1::bigint AND status IN ('pending', 'failed')
RETURNING ${ACTION_COLUMNS}`;

/**
 * Retry in place (policy `block`): the failed head becomes pending again, still
 * the head, with a fresh budget of `max_attempts` more attempts (attempt
 * numbers keep growing, so they stay unique fencing tokens). `$1::bigint` id.
 */
export const RETRY_IN_PLACE_SQL = `
UPDATE actions
SET status = 'pending', run_at = now(), finished_at = NULL, max_attempts = attempts + max_attempts
WHERE id = $1::bigint AND status = 'failed' AND on_failure = 'block'
RETURNING ${ACTION_COLUMNS}`;

/** Wakes the workers (the channel the triggers notify when a head becomes claimable). */
export const NOTIFY_READY_SQL = `SELECT pg_notify('actions_ready', '')`;

/** Locks a failed `skip` action for re-enqueueing, unless it was already retried. `$1::bigint` id. */
export const LOCK_FAILED_SKIP_SQL = `
SELECT ${ACTION_COLUMNS},
       (SELECT id::text FROM actions r WHERE r.retry_of = a.id LIMIT 1) AS retried_as
FROM actions a
WHERE id = $1::bigint AND status = 'failed' AND on_failure = 'skip'
FOR UPDATE`;

/** A group's state. `$1::bigint` lock id. */
export const SELECT_GROUP_SQL = `
SELECT g.head_id::text AS head_id,
       (SELECT count(*)::int FROM actions a WHERE a.lock_id = g.lock_id AND a.holds_group AND a.status = 'pending') AS pending_count
FROM action_groups g WHERE g.lock_id = $1::bigint`;
