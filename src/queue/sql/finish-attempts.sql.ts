/**
 * Ends a batch of attempts in one statement: updates each action to its next
 * state and appends one trace row per attempt. Fenced per row: an action is
 * touched only while it is still `running` under this worker's lease and the
 * same attempt number (the fencing token). A row that no longer matches (the
 * lease expired and the reaper or another worker took over) is left alone and
 * gets no trace row from here; the caller logs it as a fenced completion.
 *
 * Parameters (arrays of equal length, one element per attempt):
 * `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]` attempt numbers,
 * `$4::text[]` next status (`done`, `pending` for a retry or release, `failed`),
 * `$5::jsonb[]` results (for `done`), `$6::text[]` errors, `$7::int[]` retry
 * delay in ms (for `pending`), `$8::text[]` trace outcome (`done`, `error`,
 * `released`).
 *
 * A `released` attempt (graceful shutdown) does not count toward maxAttempts:
 * the budget grows by one, so the attempt number stays a unique fencing token.
 * When a head reaches a state that releases its group, the
 * `actions_after_release` trigger promotes the next head in this transaction.
 *
 * Returns `{ action_id, attempt }` for each attempt that was recorded.
 */
export const FINISH_ATTEMPTS_SQL = {
  name: 'aq_finish_attempts_v1',
  text: `
WITH input AS (
  SELECT *
  FROM unnest($2::bigint[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::int[], $8::text[])
       AS t(id, attempt, next_status, result, error, delay_ms, outcome)
),
ended AS (
  UPDATE actions AS a
  SET status           = i.next_status,
      result           = CASE WHEN i.next_status = 'done' THEN i.result ELSE a.result END,
      last_error       = CASE WHEN i.outcome = 'error' THEN i.error ELSE a.last_error END,
      finished_at      = CASE WHEN i.next_status IN ('done', 'failed') THEN clock_timestamp() END,
      run_at           = CASE WHEN i.next_status = 'pending'
                              THEN now() + i.delay_ms * interval '1 millisecond'
                              ELSE a.run_at END,
      max_attempts     = CASE WHEN i.outcome = 'released' THEN a.max_attempts + 1 ELSE a.max_attempts END,
      lease_owner      = NULL,
      lease_expires_at = NULL
  FROM input AS i
  WHERE a.id = i.id
    AND a.status = 'running'
    AND a.lease_owner = $1::text
    AND a.attempts = i.attempt
  RETURNING a.id, a.lock_id, i.attempt, i.outcome, i.error, a.attempt_started_at
)
INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, error)
SELECT id, lock_id, attempt, $1::text, attempt_started_at, clock_timestamp(), outcome, error
FROM ended
RETURNING action_id::text, attempt`,
};
