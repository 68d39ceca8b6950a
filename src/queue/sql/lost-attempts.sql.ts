/**
 * Reaper: ends up to `$1::int` expired leases (`aq_reap_expired_leases`,
 * src/database/functions/aq_reap_expired_leases.sql). The suspect and charging
 * rules are the lost-attempt ending's, current in 042-ordered-chunks.up.sql
 * (reasoned in 011-lost-attempts-in-parallel.up.sql).
 * Returns `{ action_id, attempt, worker_id, status, charged }` per lost attempt.
 */
export const REAP_EXPIRED_LEASES_SQL = {
  name: 'aq_reap_expired_leases',
  text: `SELECT action_id::text, attempt, worker_id, status, charged FROM aq_reap_expired_leases($1::int)`,
};

/**
 * Ends every running attempt of worker `$1::text` at once, when its instance
 * must go down (`aq_release_worker`): the culprit `$2::bigint` (null: unknown)
 * ends as an error with message `$3::text`; the others are released, claimable
 * again after `$4::int` ms. Same result rows as the reaper.
 */
export const RELEASE_WORKER_SQL = `SELECT action_id::text, attempt, worker_id, status, charged FROM aq_release_worker($1::text, $2::bigint, $3::text, $4::int)`;

/**
 * The database clock minus `$1::int` ms, as text (full precision), for
 * RELEASE_UNKNOWN_LEASES_SQL's cutoff: read before the held leases are listed.
 */
export const UNKNOWN_LEASES_CUTOFF_SQL = {
  name: 'aq_unknown_leases_cutoff',
  text: `SELECT (clock_timestamp() - $1::int * interval '1 millisecond')::text AS cutoff`,
};

/**
 * Releases, uncharged and not as losses, the leases worker `$1::text` has in
 * the database but does not hold (`$2::bigint[]`: the ids it holds), granted
 * before `$3::timestamptz` (`aq_release_unknown_leases`,
 * src/database/functions/aq_release_unknown_leases.sql). Same result rows as the reaper.
 */
export const RELEASE_UNKNOWN_LEASES_SQL = {
  name: 'aq_release_unknown_leases',
  text: `SELECT action_id::text, attempt, worker_id, status, charged FROM aq_release_unknown_leases($1::text, $2::bigint[], $3::timestamptz)`,
};

/**
 * After a database outage: gives every running attempt whose lease expired
 * while the database refused writes `$1::int` ms more, so that a live owner
 * releases it uncharged as an unknown lease (RELEASE_UNKNOWN_LEASES_SQL)
 * instead of the reaper counting it as lost with its instance; a dead owner's
 * lease expires again and is reaped as a loss then. Returns `{ n }`, the
 * leases extended.
 */
export const GRACE_EXPIRED_LEASES_SQL = `WITH g AS (
  UPDATE actions SET lease_expires_at = now() + $1::int * interval '1 millisecond'
  WHERE status = 'running' AND lease_expires_at < now()
  RETURNING 1
) SELECT count(*)::int AS n FROM g`;

/**
 * What the lifecycle events say about actions the reaper ended for good:
 * `$1::bigint[]` ids. Read after the reaping statement committed, and only
 * when a listener waits for `failed`, `blocked` or `cancelled` (the reaper's
 * own rows carry no type or group).
 */
export const REAPED_ACTIONS_SQL = `SELECT id::text, lock_id::text, type, on_failure, last_error FROM actions WHERE id = ANY($1::bigint[])`;
