/**
 * ctx.transaction's early check (transactional-completion.ts): who holds the
 * action now. No lock: the finishing statement's update is the fence, and a
 * row lock held while the handler's callback runs would keep the heartbeat
 * (SKIP LOCKED) from extending the lease.
 *
 * It also bounds the transaction on the server: idle in it for `$2` ms (the
 * lease), its session is ended and its locks (the group's state row, the
 * handler's own rows) are released. A holder cut off from the database
 * mid-transaction would otherwise keep them until TCP noticed (hours), and
 * the next holder of the group, after the lease expired, would wait on them.
 * Parameters: `$1::bigint` action id, `$2` LEASE_MS as text.
 */
export const OWNER_CHECK_SQL = `SELECT a.status, a.lease_owner, a.attempts, a.cancel_requested_at IS NOT NULL AS cancel_requested,
  set_config('idle_in_transaction_session_timeout', $2::text, true) AS idle_limit_ms
FROM actions AS a WHERE a.id = $1::bigint`;

export interface OwnerCheckRow {
  status: string;
  lease_owner: string | null;
  attempts: number;
  cancel_requested: boolean;
}

/**
 * Takes the group's lock row, waiting for a producer that holds it (its
 * enqueue commits in milliseconds): the finishing statement skips a group
 * locked by another transaction and defers its completion, which a handler's
 * transaction could not retry. One group, so no lock-order concern among
 * group locks; like every writer, the group lock comes before the action's
 * row. Parameter: `$1::bigint` lock id.
 */
export const LOCK_GROUP_SQL = `SELECT 1 FROM action_group_locks WHERE lock_id = $1::bigint FOR UPDATE`;

/**
 * The group's stored state (action_group_states, 050-group-state.up.sql),
 * locked until the handler's transaction ends: an operator's DELETE of the
 * state waits for it and then removes what it wrote, instead of being undone
 * by a write based on what it read. Parameter: `$1::bigint` lock id.
 * Returns `state` (jsonb).
 */
export const READ_GROUP_STATE_SQL = `SELECT s.state FROM action_group_states AS s WHERE s.lock_id = $1::bigint FOR NO KEY UPDATE`;

/**
 * Stores a group's state: version 1 for a new one, one more when the value
 * changed, nothing when it is the same. Parameters: `$1::bigint` lock id,
 * `$2::jsonb` the state (JSON text).
 */
export const WRITE_GROUP_STATE_SQL = `INSERT INTO action_group_states AS s (lock_id, state, version) VALUES ($1::bigint, $2::jsonb, 1)
ON CONFLICT (lock_id) DO UPDATE SET state = EXCLUDED.state, version = s.version + 1, updated_at = clock_timestamp()
WHERE s.state IS DISTINCT FROM EXCLUDED.state`;
