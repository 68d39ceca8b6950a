import type { ActionRow } from './action-columns.sql';

/*
 * Reads of groups for operators (GET /groups/blocked, /groups/deepest,
 * /groups/:lockId/timeline). Each walks an index whose size is the live queue
 * or one group, never the whole finished history.
 */

/**
 * Blocked groups in lock id order, each with its failed head and how many
 * actions wait behind it. Through actions_blocked_idx (one entry per blocked
 * group); the waiting count walks that group's holding rows
 * (actions_group_holding_idx); the head row names its string key, if any. `$1::bigint` list after this lock id (null:
 * from the start), `$2::int` limit.
 */
export const BLOCKED_GROUPS_SQL = `
SELECT a.lock_id::text AS lock_id, a.group_key, a.id::text AS id, a.type, a.attempts, a.max_attempts, a.last_error,
       a.created_at, a.finished_at,
       (SELECT count(*)::int FROM actions AS w
        WHERE w.lock_id = a.lock_id AND w.holds_group AND w.lock_id IS NOT NULL AND w.id > a.id) AS waiting
FROM actions AS a
WHERE a.status = 'failed' AND a.holds_group AND a.lock_id IS NOT NULL
  AND ($1::bigint IS NULL OR a.lock_id > $1::bigint)
ORDER BY a.lock_id
LIMIT $2::int`;

/**
 * The groups with the most actions holding them (pending, running, or a
 * blocking failure), deepest first, with their head. An index-only walk of
 * actions_group_holding_idx: its cost grows with the grouped backlog, not with
 * history. `$1::int` limit.
 */
export const DEEPEST_GROUPS_SQL = `
SELECT d.lock_id::text AS lock_id, d.depth,
       -- One primary-key probe per listed group (at most 100).
       (SELECT k.group_key FROM action_group_keys AS k WHERE k.lock_id = d.lock_id) AS group_key,
       h.id::text AS head_id, h.type AS head_type, h.status AS head_status, h.attempts AS head_attempts,
       h.run_at AS head_run_at, h.last_error AS head_last_error
FROM (
  SELECT a.lock_id, count(*)::int AS depth
  FROM actions AS a
  WHERE a.holds_group AND a.lock_id IS NOT NULL
  GROUP BY a.lock_id
  ORDER BY count(*) DESC, a.lock_id
  LIMIT $1::int
) AS d
LEFT JOIN action_groups AS g ON g.lock_id = d.lock_id
LEFT JOIN actions AS h ON h.id = g.head_id
ORDER BY d.depth DESC, d.lock_id`;

/**
 * The columns a timeline entry shows: never `payload` or `result` (up to 200
 * rows of them, unbounded by MAX_RESPONSE_BYTES since they are not sent, were
 * fetched into the service for nothing).
 */
const TIMELINE_COLUMNS = `
  id::text, type, status, attempts, max_attempts, on_failure, run_at, created_at, started_at, finished_at, last_error`;

/** A row of GROUP_TIMELINE_SQL. */
export type TimelineRow = Pick<
  ActionRow,
  'id' | 'type' | 'status' | 'attempts' | 'max_attempts' | 'on_failure' | 'run_at' | 'created_at' | 'started_at' | 'finished_at' | 'last_error'
> & { lease_owner: string | null; attempt_started_at: Date | null; lease_expires_at: Date | null };

/**
 * A group's most recent actions before an id, newest first (the caller puts
 * them in id order): the holding rows from actions_group_holding_idx and the
 * finished ones from actions_group_finished_idx, both walked backwards from
 * `$2`. Adds the current attempt of a running action (owner, start, lease).
 * `$1::bigint` lock id, `$2::bigint` before this id, `$3::int` limit.
 */
export const GROUP_TIMELINE_SQL = `
SELECT ${TIMELINE_COLUMNS}, lease_owner, attempt_started_at, lease_expires_at FROM (
  (SELECT * FROM actions
   WHERE lock_id = $1::bigint AND lock_id IS NOT NULL AND holds_group AND id < $2::bigint
   ORDER BY lock_id DESC, id DESC LIMIT $3::int)
  UNION ALL
  (SELECT * FROM actions
   WHERE lock_id = $1::bigint AND lock_id IS NOT NULL AND NOT holds_group AND id < $2::bigint
   ORDER BY lock_id DESC, id DESC LIMIT $3::int)
) AS a
ORDER BY a.id DESC -- the bigint column, not the id::text output column
LIMIT $3::int`;

/** The trace of several actions, by primary key. `$1::bigint[]` action ids. */
export const TRACES_SQL = `
SELECT action_id::text AS action_id, attempt, worker_id, started_at, finished_at, outcome, error, chunk_of::text AS chunk_of
FROM action_attempts WHERE action_id = ANY($1::bigint[])
ORDER BY action_id, attempt`;

/**
 * Bytes each action's trace takes on the timeline: per attempt its worker id and
 * error (the fixed fields are left out), from the stored sizes. `$1::bigint[]`
 * action ids; an action with no attempt has no row.
 */
export const TRACE_BYTES_SQL = `
SELECT action_id::text AS action_id, sum(octet_length(worker_id) + coalesce(octet_length(error), 0)) AS bytes
FROM action_attempts WHERE action_id = ANY($1::bigint[])
GROUP BY action_id`;
