/*
 * The statements of the tenant settings routes: plain reads and writes of
 * action_tenant_settings (src/database/sql/052-tenants.up.sql and 053), as an
 * operator makes them from psql (docs/tenants.md).
 */

/** The columns of a settings row as the API reads them. */
const COLUMNS = `tenant, weight, max_running, rate_per_second, rate_burst, updated_at`;

/** One tenant's settings: `$1::text` tenant. */
export const SELECT_TENANT_SETTINGS_SQL = `SELECT ${COLUMNS} FROM action_tenant_settings WHERE tenant = $1::text`;

/** Tenants with stored settings in name order, after `$1::text` (exclusive), at most `$2::int`. Primary-key walk. */
export const LIST_TENANT_SETTINGS_SQL = `
SELECT ${COLUMNS} FROM action_tenant_settings WHERE tenant > $1::text ORDER BY tenant LIMIT $2::int`;

/**
 * Stores a tenant's settings whole: `$1::text` tenant, `$2::float8` weight,
 * `$3::int` max running (null: no cap), `$4::float8` rate per second and
 * `$5::int` burst (both null: no rate limit). A changed rate starts with a
 * full bucket of its burst (as a new type limit does).
 */
export const UPSERT_TENANT_SETTINGS_SQL = `
INSERT INTO action_tenant_settings AS s (tenant, weight, max_running, rate_per_second, rate_burst, tokens, refilled_at, updated_at)
VALUES ($1::text, $2::float8, $3::int, $4::float8, $5::int, coalesce($5::int, 1), clock_timestamp(), clock_timestamp())
ON CONFLICT (tenant) DO UPDATE
SET weight = EXCLUDED.weight, max_running = EXCLUDED.max_running,
    tokens = CASE WHEN s.rate_per_second IS NOT DISTINCT FROM EXCLUDED.rate_per_second AND s.rate_burst IS NOT DISTINCT FROM EXCLUDED.rate_burst
                  THEN s.tokens ELSE EXCLUDED.tokens END,
    refilled_at = CASE WHEN s.rate_per_second IS NOT DISTINCT FROM EXCLUDED.rate_per_second AND s.rate_burst IS NOT DISTINCT FROM EXCLUDED.rate_burst
                       THEN s.refilled_at ELSE EXCLUDED.refilled_at END,
    rate_per_second = EXCLUDED.rate_per_second, rate_burst = EXCLUDED.rate_burst, updated_at = EXCLUDED.updated_at
RETURNING ${COLUMNS.split(', ')
  .map((c) => `s.${c}`)
  .join(', ')}`;

/** Deletes a tenant's settings (back to the defaults): `$1::text` tenant; a row back when there were some. */
export const DELETE_TENANT_SETTINGS_SQL = `
WITH gone AS (DELETE FROM action_tenant_settings WHERE tenant = $1::text RETURNING tenant) SELECT tenant FROM gone`;
