/**
 * Heartbeat: extends the leases this worker still holds by `$4` ms from the
 * database clock. Fenced like completion (id, running, owner, attempt).
 *
 * Parameters: `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]`
 * attempt numbers, `$4::int` lease length in ms.
 * Returns the ids still held; any id missing from the answer lost its lease.
 *
 * Rows are locked in id order first: a finishing statement of the same worker
 * may be updating some of these rows at the same moment, and it locks them in
 * id order too (AttemptFinisher sorts its batch), so the two cannot deadlock.
 */
export const EXTEND_LEASES_SQL = {
  name: 'aq_extend_leases_v2',
  text: `
WITH held AS MATERIALIZED (
  SELECT a.id
  FROM actions AS a
  JOIN unnest($2::bigint[], $3::int[]) AS t(id, attempt) ON a.id = t.id
  WHERE a.status = 'running'
    AND a.lease_owner = $1::text
    AND a.attempts = t.attempt
  ORDER BY a.id
  FOR UPDATE OF a
)
UPDATE actions AS a
SET lease_expires_at = now() + $4::int * interval '1 millisecond'
FROM held
WHERE a.id = held.id
  AND a.status = 'running'
  AND a.lease_owner = $1::text
RETURNING a.id::text`,
};
