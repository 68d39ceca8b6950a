/**
 * Writes this instance's handlers' default rate limits
 * (src/database/functions/aq_set_rate_limit_defaults.sql):
 * `$1::text[]` types, `$2::float8[]` per second (null: none), `$3::int[]` burst.
 * Operator overrides are left as they are.
 */
export const SET_RATE_LIMIT_DEFAULTS_SQL = {
  name: 'aq_set_rate_limit_defaults',
  text: `SELECT aq_set_rate_limit_defaults($1::text[], $2::float8[], $3::int[])`,
};
