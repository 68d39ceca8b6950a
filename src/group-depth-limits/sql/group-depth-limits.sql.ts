/*
 * Statements of the group depth limits (table and trigger:
 * src/database/sql/035-group-depth-limits.up.sql). The global limit is the
 * row whose action_type is NULL; the unique index is on coalesce(action_type, '').
 */

/** Every limit, the global one first, then by type. Returns `action_type`, `max_depth`, `updated_at`. */
export const LIST_GROUP_DEPTH_LIMITS_SQL = `
SELECT action_type, max_depth, updated_at FROM action_group_depth_limits
ORDER BY action_type NULLS FIRST`;

/** Sets one limit. `$1::text` type (null: global), `$2::int` max depth. Returns the row. */
export const UPSERT_GROUP_DEPTH_LIMIT_SQL = `
INSERT INTO action_group_depth_limits (action_type, max_depth) VALUES ($1::text, $2::int)
ON CONFLICT ((coalesce(action_type, ''))) DO UPDATE SET max_depth = EXCLUDED.max_depth, updated_at = now()
RETURNING action_type, max_depth, updated_at`;

/** Removes one limit. `$1::text` type (null: global). Returns the removed row, if any. */
export const DELETE_GROUP_DEPTH_LIMIT_SQL = `
DELETE FROM action_group_depth_limits WHERE coalesce(action_type, '') = coalesce($1::text, '')
RETURNING action_type`;
