/**
 * Deletes up to `$2::int` stored group states (action_group_states,
 * 050-group-state.up.sql) that last changed more than `$1::int` days ago and
 * whose group has no pending or running action (none holds the group): a
 * handler can only write a state while its action holds the group, so a state
 * deleted here is not being written. SKIP LOCKED: a state row a handler's
 * transaction is writing is left for the next run. Returns `deleted`.
 */
export const DELETE_STALE_GROUP_STATES_SQL = `
WITH stale AS (
  SELECT s.lock_id FROM action_group_states AS s
  WHERE s.updated_at < now() - $1::int * interval '1 day'
    AND NOT EXISTS (SELECT 1 FROM actions AS a WHERE a.lock_id = s.lock_id AND a.lock_id IS NOT NULL AND a.holds_group)
  ORDER BY s.updated_at
  LIMIT $2::int
  FOR UPDATE OF s SKIP LOCKED
), gone AS (
  DELETE FROM action_group_states AS s USING stale WHERE s.lock_id = stale.lock_id RETURNING 1
)
SELECT count(*)::int AS deleted FROM gone`;
