/*
 * Statements of the recurring actions (tables: src/database/sql/036-recurring-actions.up.sql).
 */

/** A schedule's columns as the service reads them. */
const SCHEDULE_COLUMNS = `name, cron, time_zone, type, payload, lock_id::text AS lock_id, group_key, max_attempts, catch_up,
  catch_up_limit, misfire_grace_ms, source, next_tick_at, last_tick_at, skipped_ticks::text AS skipped_ticks, last_error, created_at`;

/**
 * The most overdue schedule no other instance is handling, locked, with the
 * database clock as `db_now`. None: nothing is due (or every due one is being handled).
 */
export const LOCK_DUE_SCHEDULE_SQL = `
SELECT ${SCHEDULE_COLUMNS}, now() AS db_now FROM action_schedules
WHERE next_tick_at <= now()
ORDER BY next_tick_at
LIMIT 1
FOR UPDATE SKIP LOCKED`;

/** The earliest cursor of any schedule (none: no schedule). */
export const NEXT_DUE_SQL = `SELECT min(next_tick_at) AS next_tick_at, now() AS db_now FROM action_schedules`;

/**
 * Claims one tick: the primary key makes it once per schedule and tick.
 * `$1::text` schedule, `$2::timestamptz` tick. A row back: this transaction owns the tick.
 */
export const CLAIM_TICK_SQL = `
INSERT INTO action_schedule_ticks (schedule_name, tick_at) VALUES ($1::text, $2::timestamptz)
ON CONFLICT (schedule_name, tick_at) DO NOTHING
RETURNING tick_at`;

/**
 * The tick's action, as a plain insert (the triggers give it the guarantees of
 * any producer). `$1::bigint` lock id, `$2::text` group key, `$3::text` type,
 * `$4::jsonb` payload, `$5::int` max attempts.
 */
export const INSERT_TICK_ACTION_SQL = `
INSERT INTO actions (lock_id, group_key, type, payload, max_attempts)
VALUES ($1::bigint, $2::text, $3::text, $4::jsonb, $5::int)
RETURNING id::text`;

/** Records a tick's outcome. `$1::text` schedule, `$2::timestamptz` tick, `$3::bigint` action id, `$4::text` error. */
export const RECORD_TICK_SQL = `
UPDATE action_schedule_ticks SET action_id = $3::bigint, error = $4::text
WHERE schedule_name = $1::text AND tick_at = $2::timestamptz`;

/**
 * Moves the cursor. `$1::text` name, `$2::timestamptz` next tick, `$3::timestamptz`
 * newest enqueued tick (null: none), `$4::bigint` ticks skipped, `$5::text` error (null clears it).
 */
export const ADVANCE_SCHEDULE_SQL = `
UPDATE action_schedules
SET next_tick_at = $2::timestamptz, last_tick_at = coalesce($3::timestamptz, last_tick_at),
    skipped_ticks = skipped_ticks + $4::bigint, last_error = $5::text
WHERE name = $1::text`;

/** The database clock. */
export const DB_NOW_SQL = `SELECT now() AS db_now`;

/**
 * The names and content sizes (payload as JSON text, last error) of the first
 * `$1::int` schedules by name: measured by PostgreSQL, so the list is fitted to
 * MAX_RESPONSE_BYTES before any payload is fetched.
 */
export const LIST_SCHEDULE_SIZES_SQL = `
SELECT name, octet_length(payload::text)::bigint AS payload_bytes, coalesce(octet_length(last_error), 0)::bigint AS last_error_bytes
FROM action_schedules ORDER BY name LIMIT $1::int`;

/**
 * Schedules by name, in name order; those named in `$2::text[]` without their
 * content (payload {}, last error null). `$1::text[]` names.
 */
export const LIST_SCHEDULES_BY_NAME_SQL = `
SELECT ${SCHEDULE_COLUMNS.replace('payload,', "CASE WHEN name = ANY($2::text[]) THEN '{}'::jsonb ELSE payload END AS payload,").replace(
  'last_error,',
  'CASE WHEN name = ANY($2::text[]) THEN NULL ELSE last_error END AS last_error,',
)}
FROM action_schedules WHERE name = ANY($1::text[]) ORDER BY name`;

/** One schedule. `$1::text` name. */
export const SELECT_SCHEDULE_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM action_schedules WHERE name = $1::text`;

/**
 * Creates a schedule (none of that name may exist). Parameters in column order:
 * `$1` name, `$2` cron, `$3` time zone, `$4` type, `$5::jsonb` payload,
 * `$6::bigint` lock id, `$7` group key, `$8::int` max attempts, `$9` catch-up,
 * `$10::int` limit, `$11::int` grace ms, `$12` source, `$13::timestamptz` first tick.
 */
export const INSERT_SCHEDULE_SQL = `
INSERT INTO action_schedules (name, cron, time_zone, type, payload, lock_id, group_key, max_attempts, catch_up, catch_up_limit,
                              misfire_grace_ms, source, next_tick_at)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::bigint, $7::text, $8::int, $9::text, $10::int, $11::int, $12::text, $13::timestamptz)
ON CONFLICT (name) DO NOTHING
RETURNING ${SCHEDULE_COLUMNS}`;

/**
 * A code schedule, written at start-up: same parameters as INSERT_SCHEDULE_SQL.
 * The cursor is kept when cron and time zone are unchanged (so a restart
 * catches up by the policy instead of forgetting the missed ticks); a
 * schedule of that name created at runtime is left alone (no row back).
 */
export const UPSERT_CODE_SCHEDULE_SQL = `
INSERT INTO action_schedules AS s (name, cron, time_zone, type, payload, lock_id, group_key, max_attempts, catch_up, catch_up_limit,
                                   misfire_grace_ms, source, next_tick_at)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::bigint, $7::text, $8::int, $9::text, $10::int, $11::int, $12::text, $13::timestamptz)
ON CONFLICT (name) DO UPDATE
SET type = EXCLUDED.type, payload = EXCLUDED.payload, lock_id = EXCLUDED.lock_id, group_key = EXCLUDED.group_key,
    max_attempts = EXCLUDED.max_attempts, catch_up = EXCLUDED.catch_up, catch_up_limit = EXCLUDED.catch_up_limit,
    misfire_grace_ms = EXCLUDED.misfire_grace_ms, updated_at = now(),
    next_tick_at = CASE WHEN s.cron = EXCLUDED.cron AND s.time_zone = EXCLUDED.time_zone THEN s.next_tick_at ELSE EXCLUDED.next_tick_at END,
    cron = EXCLUDED.cron, time_zone = EXCLUDED.time_zone
WHERE s.source = 'code'
RETURNING name`;

/** Deletes a schedule. `$1::text` name. Returns the name when it existed. */
export const DELETE_SCHEDULE_SQL = `DELETE FROM action_schedules WHERE name = $1::text RETURNING name`;
