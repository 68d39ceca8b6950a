/**
 * Heartbeat: extends the leases this worker still holds by `$4` ms from the
 * database clock. Fenced like completion (id, running, owner, attempt).
 *
 * Parameters: `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]`
 * attempt numbers, `$4::int` lease length in ms.
 * Returns the ids still held; any id missing from the answer lost its lease.
 */
export const EXTEND_LEASES_SQL = {
  name: 'aq_extend_leases_v1',
  text: `
UPDATE actions AS a
SET lease_expires_at = now() + $4::int * interval '1 millisecond'
FROM unnest($2::bigint[], $3::int[]) AS t(id, attempt)
WHERE a.id = t.id
  AND a.status = 'running'
  AND a.lease_owner = $1::text
  AND a.attempts = t.attempt
RETURNING a.id::text`,
};
