/**
 * A group's stored state (action_group_states, 050-group-state.up.sql), its
 * size as JSON text measured first: over `$2` bytes the state is not fetched
 * (null) and `bytes` says why. Parameters: `$1::bigint` lock id, `$2::integer`
 * the largest state the answer may carry (MAX_RESPONSE_BYTES less the rest).
 * `version` as text: a bigint, past int4 after 2^31 changes (the service turns it into a number).
 */
export const SELECT_GROUP_HANDLER_STATE_SQL = `SELECT s.lock_id::text AS lock_id, s.version::text AS version, s.updated_at, b.bytes,
  CASE WHEN b.bytes <= $2::integer THEN s.state END AS state
FROM action_group_states AS s CROSS JOIN LATERAL (SELECT octet_length(s.state::text) AS bytes) AS b
WHERE s.lock_id = $1::bigint`;

/** Deletes a group's stored state (an operator's reset). Parameter: `$1::bigint` lock id. Returns the deleted `lock_id`. */
export const DELETE_GROUP_HANDLER_STATE_SQL = `DELETE FROM action_group_states AS s WHERE s.lock_id = $1::bigint RETURNING s.lock_id::text AS lock_id`;

/** The version and last change of a group's stored state, for `GET /groups/:lockId`. Parameter: `$1::bigint` lock id. */
export const SELECT_GROUP_STORED_STATE_SQL = `SELECT s.version::text AS version, s.updated_at FROM action_group_states AS s WHERE s.lock_id = $1::bigint`;
