/**
 * Deletes one batch of finished actions older than the retention period; their
 * trace goes with them (action_attempts.action_id ON DELETE CASCADE).
 *
 * Only rows that no longer hold their group: `done`, `cancelled`, and `failed`
 * under `skip` (NOT holds_group). A failed `block` action holds its group and
 * is kept until an operator retries or cancels it; pending and running rows
 * have no finished_at. `NOT holds_group` is checked again on the row itself,
 * and the row is locked with SKIP LOCKED, so a concurrent retry, worker or
 * second retention job is never waited for.
 *
 * Served by `actions_finished_at_idx (finished_at) WHERE finished_at IS NOT NULL
 * AND NOT holds_group`, which this WHERE clause matches. A small LIMIT per
 * statement, each in its own transaction, keeps locks short.
 *
 * `$1::int` retention in days, `$2::int` batch size. Returns the deleted ids.
 */
export const DELETE_EXPIRED_ACTIONS_SQL = `
DELETE FROM actions
WHERE id IN (
  SELECT id FROM actions
  WHERE finished_at IS NOT NULL
    AND NOT holds_group
    AND finished_at < now() - make_interval(days => $1::int)
    AND status IN ('done', 'cancelled', 'failed')
  ORDER BY finished_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
)
AND NOT holds_group
RETURNING id`;
