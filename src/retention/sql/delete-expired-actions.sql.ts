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
 * The idempotency window: an action whose `idempotency_key` was enqueued less
 * than IDEMPOTENCY_WINDOW_DAYS ago is kept whatever its age by finished_at, so
 * `actions_idempotency_key_uq` (a unique index, enforced by PostgreSQL for SQL
 * producers and the API alike) keeps refusing a repeat of the key for at least
 * that long. Retention can make the window longer, never shorter.
 *
 * Served by `actions_finished_at_idx (finished_at) WHERE finished_at IS NOT NULL
 * AND NOT holds_group`, which this WHERE clause matches. A small LIMIT per
 * statement, each in its own transaction, keeps locks short. The caller passes
 * the largest finished_at of the previous batch as `$4`, so rows kept by the
 * window (or skipped as locked) are walked once per run, not once per batch.
 *
 * `$1::int` retention in days, `$2::int` batch size, `$3::int` idempotency
 * window in days, `$4::timestamptz` start of the scan (`-infinity` first).
 * Returns one row: `picked` (rows locked), `deleted`, and `last_finished_at`
 * (text, full precision; null when nothing was picked).
 */
export const DELETE_EXPIRED_ACTIONS_SQL = `
WITH doomed AS (
  SELECT id, finished_at FROM actions
  WHERE finished_at IS NOT NULL
    AND NOT holds_group
    AND finished_at < now() - make_interval(days => $1::int)
    AND finished_at >= $4::timestamptz
    AND status IN ('done', 'cancelled', 'failed')
    AND (idempotency_key IS NULL OR created_at < now() - make_interval(days => $3::int))
  ORDER BY finished_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
),
deleted AS (
  DELETE FROM actions AS a
  USING doomed AS d
  WHERE a.id = d.id AND NOT a.holds_group
  RETURNING a.id
)
SELECT (SELECT count(*) FROM doomed)::int AS picked,
       (SELECT count(*) FROM deleted)::int AS deleted,
       (SELECT max(finished_at) FROM doomed)::text AS last_finished_at`;
