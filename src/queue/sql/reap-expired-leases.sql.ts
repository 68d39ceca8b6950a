/**
 * Reaper: returns up to `$1` actions whose lease expired to `pending` (to run
 * again, still the head of their group), or to `failed` when their attempts are
 * spent, and records the lost attempt as `lease_expired` in the trace.
 *
 * Safe against races: rows are locked `FOR UPDATE SKIP LOCKED` (a completion in
 * flight holds the row, so it is skipped this round), and the UPDATE re-checks
 * `status = 'running' AND lease_expires_at < now()` on the locked version, so an
 * action completed or re-leased meanwhile is never overwritten.
 *
 * Index: `actions_running_idx (id) WHERE status = 'running'` (running rows are few).
 * Returns `{ action_id, attempt, worker_id, status }` per reaped action.
 */
export const REAP_EXPIRED_LEASES_SQL = {
  name: 'aq_reap_expired_leases_v1',
  text: `
WITH expired AS MATERIALIZED (
  SELECT id, lease_owner, attempts, attempt_started_at
  FROM actions
  WHERE status = 'running' AND lease_expires_at < now()
  ORDER BY lease_expires_at
  LIMIT $1::int
  FOR UPDATE SKIP LOCKED
),
reset AS (
  UPDATE actions AS a
  SET status           = CASE WHEN a.attempts >= a.max_attempts THEN 'failed' ELSE 'pending' END,
      finished_at      = CASE WHEN a.attempts >= a.max_attempts THEN clock_timestamp() END,
      last_error       = 'lease expired (worker ' || e.lease_owner || ', attempt ' || e.attempts || ')',
      lease_owner      = NULL,
      lease_expires_at = NULL
  FROM expired AS e
  WHERE a.id = e.id
    AND a.status = 'running'
    AND a.lease_expires_at < now()
  RETURNING a.id, a.lock_id, e.attempts, e.lease_owner, e.attempt_started_at, a.status
)
INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
SELECT id, lock_id, attempts, lease_owner, attempt_started_at, clock_timestamp(), 'lease_expired', 'lease expired'
FROM reset
RETURNING action_id::text, attempt, worker_id`,
};
