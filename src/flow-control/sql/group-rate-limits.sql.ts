/*
 * The statements of the group rate-limit routes, over action_group_rate_limits
 * and aq_set_group_rate_limit (src/database/functions/aq_set_group_rate_limit.sql), the
 * function psql users call too.
 */

/** The columns of a group limit as the API shows it; `g` is action_group_rate_limits, `k` its group key (if any). */
const GROUP_RATE_LIMIT_COLUMNS = `g.lock_id::text AS lock_id, k.group_key, g.per_second, g.burst, g.updated_at`;

/**
 * Sets the limit of group `$1::bigint`, or of string group key `$4::text`
 * (interned if new, so a group can be limited before its first action):
 * `$2::float8` per second, `$3::int` burst. Returns the row. (A key interned
 * here is not yet visible to this statement's join: the key is `$4` itself.)
 */
export const SET_GROUP_RATE_LIMIT_SQL = `
WITH g AS (SELECT * FROM aq_set_group_rate_limit(
  CASE WHEN $4::text IS NULL THEN $1::bigint ELSE aq_intern_group_key($4::text) END, $2::float8, $3::int))
SELECT g.lock_id::text AS lock_id, coalesce($4::text, k.group_key) AS group_key, g.per_second, g.burst, g.updated_at
FROM g LEFT JOIN action_group_keys AS k ON k.lock_id = g.lock_id`;

/**
 * Removes the limit of group `$1::bigint`, or of string group key `$2::text`:
 * one row when it had one (now removed), none when it had none. The function
 * runs once, for the one row found by primary key.
 */
export const REMOVE_GROUP_RATE_LIMIT_SQL = `
SELECT aq_set_group_rate_limit(g.lock_id, NULL) IS NULL AS removed
FROM action_group_rate_limits AS g
WHERE g.lock_id = CASE WHEN $2::text IS NULL THEN $1::bigint
                       ELSE (SELECT k.lock_id FROM action_group_keys AS k WHERE k.group_key = $2::text) END`;

/**
 * Group limits in lock-id order after lock id `$1::bigint` (null: from the
 * start), at most `$2::int`: a primary-key walk.
 */
export const LIST_GROUP_RATE_LIMITS_SQL = `
SELECT ${GROUP_RATE_LIMIT_COLUMNS}
FROM action_group_rate_limits AS g LEFT JOIN action_group_keys AS k ON k.lock_id = g.lock_id
WHERE $1::bigint IS NULL OR g.lock_id > $1::bigint
ORDER BY g.lock_id
LIMIT $2::int`;
