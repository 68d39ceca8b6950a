/**
 * Removing the lock rows (`action_group_locks`, migration 039) and head
 * records (`action_group_heads`) of groups that hold nothing, in two
 * statements of one short READ COMMITTED transaction:
 *
 * 1. LOCK_EMPTY_GROUPS_SQL picks and locks a batch of candidates.
 * 2. DELETE_EMPTY_GROUPS_SQL deletes those that are still empty.
 *
 * A group's lock row is the lock every writer of the group takes (the insert
 * trigger, aq_promote_groups on release), and an action is only ever
 * inserted into a group while its row is locked, until commit. So once this
 * transaction holds the row lock, no open transaction has written into the
 * group, and a later insert waits for this commit. Statement 2 runs with a
 * fresh snapshot taken after the locks, so it sees every insert committed
 * before them: "no action row with this lock_id" is then true, not a stale
 * view (and a group without actions has no head). An insert that waited on the lock finds the row gone
 * and creates it again (the insert trigger loops until it holds a lock row, see
 * src/database/sql/039-group-head-records.up.sql), so it never runs without its group lock and never
 * makes a second head.
 *
 * Only groups with no action row at all (finished ones included) go: a group
 * row is one small tuple, and keeping it while its history is kept costs
 * nothing. Rows are locked in lock_id order with SKIP LOCKED, so the job never
 * waits for a producer or worker and cannot deadlock with them.
 */

/**
 * Locks up to `$2::int` empty groups with a lock id above `$1::bigint` (null:
 * from the start), in lock_id order (the primary key; a cursor, so groups that
 * are not empty are walked once per run). The NOT EXISTS probes are served by
 * actions_group_holding_idx and actions_group_finished_idx. Returns `lock_id`
 * (text).
 */
export const LOCK_EMPTY_GROUPS_SQL = `
SELECT g.lock_id::text AS lock_id
FROM action_group_locks AS g
WHERE ($1::bigint IS NULL OR g.lock_id > $1::bigint)
  AND NOT EXISTS (SELECT 1 FROM actions AS a WHERE a.lock_id = g.lock_id AND a.lock_id IS NOT NULL AND a.holds_group)
  AND NOT EXISTS (SELECT 1 FROM actions AS a WHERE a.lock_id = g.lock_id AND a.lock_id IS NOT NULL AND NOT a.holds_group)
ORDER BY g.lock_id
LIMIT $2::int
FOR UPDATE OF g SKIP LOCKED`;

/**
 * Deletes the locked groups `$1::bigint[]` that are still empty, checked again
 * with this statement's fresh snapshot, with their head records. Returns
 * `lock_id` (text).
 */
export const DELETE_EMPTY_GROUPS_SQL = `
WITH gone AS (
  DELETE FROM action_group_locks AS g
  WHERE g.lock_id = ANY($1::bigint[])
    AND NOT EXISTS (SELECT 1 FROM actions AS a WHERE a.lock_id = g.lock_id AND a.lock_id IS NOT NULL AND a.holds_group)
    AND NOT EXISTS (SELECT 1 FROM actions AS a WHERE a.lock_id = g.lock_id AND a.lock_id IS NOT NULL AND NOT a.holds_group)
  RETURNING g.lock_id
), records AS (
  DELETE FROM action_group_heads AS h USING gone WHERE h.lock_id = gone.lock_id
)
SELECT gone.lock_id::text AS lock_id FROM gone`;
