/*
 * The statements of the rate-limit routes, over action_rate_limits and
 * aq_set_rate_limit (src/database/functions/aq_set_rate_limit.sql), the function
 * psql users call too.
 */

/** The columns of a limit as the API shows it; `b` is action_rate_limits. */
const RATE_LIMIT_COLUMNS = `b.type, b.per_second, b.burst, b.default_per_second, b.default_burst, b.override_per_second, b.override_burst, b.updated_at`;

/** Sets the override of type `$1::text`: `$2::float8` per second, `$3::int` burst; returns the row. */
export const SET_RATE_LIMIT_SQL = `
WITH b AS (SELECT * FROM aq_set_rate_limit($1::text, $2::float8, $3::int))
SELECT ${RATE_LIMIT_COLUMNS} FROM b`;

/** Clears the override of type `$1::text`; returns the row left (the handler's default), if any. */
export const CLEAR_RATE_LIMIT_SQL = `
WITH b AS (SELECT * FROM aq_set_rate_limit($1::text, NULL, NULL))
SELECT ${RATE_LIMIT_COLUMNS} FROM b WHERE b.type IS NOT NULL`;

/** Whether type `$1::text` has an override. */
export const HAS_OVERRIDE_SQL = `SELECT EXISTS (SELECT 1 FROM action_rate_limits WHERE type = $1::text AND override_per_second IS NOT NULL) AS has`;

/** Every limit in force, by type (one row per limited type: a small table). */
export const LIST_RATE_LIMITS_SQL = `
SELECT ${RATE_LIMIT_COLUMNS} FROM action_rate_limits AS b WHERE b.per_second IS NOT NULL ORDER BY b.type`;
