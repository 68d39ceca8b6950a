/**
 * Heartbeat: extends the leases this worker still holds by `$4` ms from the
 * database clock, fenced like completion (id, running, owner, attempt), and
 * reports pending cancellation requests.
 *
 * Parameters: `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]`
 * attempt numbers, `$4::int` lease length in ms.
 * Returns `{ id, attempt, extended, cancel_requested }` for each action still held:
 * `extended` false when its row was locked at that moment (see below) and its
 * lease was left as it was. An id missing from the answer lost its lease.
 *
 * SKIP LOCKED: the rows most often locked are the worker's own attempts that a
 * finishing statement is recording right now. Waiting for them would only
 * delay every other lease, and a wait on rows that a finishing statement
 * locks in another order deadlocked under load.
 */
export const EXTEND_LEASES_SQL = {
  name: 'aq_extend_leases',
  text: `
WITH held AS MATERIALIZED (
  SELECT a.id, a.attempts, a.cancel_requested_at IS NOT NULL AS cancel_requested
  FROM actions AS a
  JOIN unnest($2::bigint[], $3::int[]) AS t(id, attempt) ON a.id = t.id
  WHERE a.status = 'running' AND a.lease_owner = $1::text AND a.attempts = t.attempt
),
-- The fence again on the newest row version (a lock waits for nothing here).
locked AS MATERIALIZED (
  SELECT a.id
  FROM actions AS a
  JOIN held AS h ON a.id = h.id
  WHERE a.status = 'running' AND a.lease_owner = $1::text AND a.attempts = h.attempts
  FOR UPDATE OF a SKIP LOCKED
),
extended AS (
  UPDATE actions AS a
  -- Never earlier than it is: an operator may have extended it by hand (and the
  -- guard trigger refuses cutting a lease short).
  SET lease_expires_at = greatest(a.lease_expires_at, now() + $4::int * interval '1 millisecond')
  FROM locked
  WHERE a.id = locked.id
  RETURNING a.id
)
SELECT h.id::text AS id, h.attempts AS attempt, h.id IN (SELECT e.id FROM extended AS e) AS extended, h.cancel_requested
FROM held AS h`,
};
