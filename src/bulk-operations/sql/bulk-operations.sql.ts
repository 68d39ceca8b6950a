/*
 * Statements of bulk retry and cancel (audit table: src/database/sql/037-bulk-operations.up.sql).
 */

/**
 * The filter every statement here shares, over `actions AS a`:
 * `$1::text[]` statuses (those the operation accepts, narrowed by the filter),
 * `$2::text` type, `$3::bigint` lock id, `$4::text` error text (a substring of
 * last_error, case-sensitive), `$5::timestamptz` created at or after,
 * `$6::timestamptz` created before; each null = any.
 */
const MATCHES = `
  a.status = ANY($1::text[])
  AND ($2::text IS NULL OR a.type = $2::text)
  AND ($3::bigint IS NULL OR a.lock_id = $3::bigint)
  AND ($4::text IS NULL OR strpos(a.last_error, $4::text) > 0)
  AND ($5::timestamptz IS NULL OR a.created_at >= $5::timestamptz)
  AND ($6::timestamptz IS NULL OR a.created_at < $6::timestamptz)`;

/**
 * How many actions the filter matches (the dry run), and the largest id among
 * them (null: none), in one snapshot: the chunks stop at that id, so actions
 * enqueued while the operation runs are left alone. Parameters: see MATCHES.
 */
export const COUNT_MATCHING_SQL = `SELECT count(*)::bigint AS n, max(a.id)::text AS max_id FROM actions AS a WHERE ${MATCHES}`;

/**
 * The next chunk of matching ids in id order, after `$7::bigint` and up to
 * `$9::bigint` (the largest id matched at the start), at most `$8::int`:
 * chunks walk the table once, so an action changed by a chunk is never met
 * again. Parameters 1..6: see MATCHES.
 */
export const NEXT_CHUNK_SQL = `
SELECT a.id::text AS id FROM actions AS a
WHERE ${MATCHES} AND a.id > $7::bigint AND a.id <= $9::bigint
ORDER BY a.id LIMIT $8::int`;

/**
 * Retry in place (policy `block`), as POST /actions/:id/retry does one
 * (RETRY_IN_PLACE_SQL in src/actions/sql/manage-actions.sql.ts): pending
 * again, same id, so the group keeps its order. `$1::bigint[]` ids. Returns
 * the actions' ids, lock ids, types, group keys and policies (the lifecycle events').
 */
export const RETRY_BLOCKED_CHUNK_SQL = `
UPDATE actions
SET status = 'pending', run_at = now(), finished_at = NULL, charged_attempts = 0,
    cancel_requested_at = NULL, quarantined = false, uncharged_losses = 0
WHERE id = ANY($1::bigint[]) AND status = 'failed' AND on_failure = 'block'
RETURNING id::text AS id, lock_id::text AS lock_id, type, group_key, on_failure`;

/**
 * Retry as copies (policy `skip`), as POST /actions/:id/retry does one: each
 * copy goes to its group's tail with retry_of set (once per action: the
 * unique index). Rows in lock_id, then id order: the insert trigger then
 * locks groups in lock_id order as every writer does, and the copies of one
 * group take ids in the order of the originals, so they run in that order.
 * `$1::bigint[]` ids. Returns the copies' ids with their originals' (`retry_of`),
 * lock ids, types, group keys and policies (the lifecycle events').
 */
export const RETRY_SKIPPED_CHUNK_SQL = `
INSERT INTO actions (lock_id, group_key, type, payload, max_attempts, on_failure, retry_of, tenant)
SELECT a.lock_id, a.group_key, a.type, a.payload, a.max_attempts, a.on_failure, a.id, a.tenant
FROM actions AS a
WHERE a.id = ANY($1::bigint[]) AND a.status = 'failed' AND a.on_failure = 'skip'
  AND NOT EXISTS (SELECT 1 FROM actions AS r WHERE r.retry_of = a.id)
ORDER BY a.lock_id NULLS LAST, a.id
ON CONFLICT (retry_of) WHERE retry_of IS NOT NULL DO NOTHING
RETURNING id::text AS id, lock_id::text AS lock_id, type, group_key, on_failure, retry_of::text AS retry_of`;

/**
 * Cancel, the statement of POST /actions/:id/cancel (CANCEL_ACTION_SQL) for
 * many: pending and failed end `cancelled` at once; a running one gets its
 * cancellation request (its holder is notified, 013) and ends `cancelled`
 * once its handler stopped. `$1::bigint[]` ids. Returns the ids, lock ids,
 * types, group keys, policies, new statuses and the statuses before
 * (`previous_status`, read from the statement's snapshot as CANCEL_ACTION_SQL
 * reads it) for the lifecycle events.
 */
export const CANCEL_CHUNK_SQL = `
UPDATE actions
SET status              = CASE WHEN status = 'running' THEN status ELSE 'cancelled' END,
    finished_at         = CASE WHEN status = 'running' THEN finished_at ELSE clock_timestamp() END,
    cancel_requested_at = coalesce(cancel_requested_at, clock_timestamp())
FROM (SELECT p.id AS previous_id, p.status AS previous_status FROM actions AS p WHERE p.id = ANY($1::bigint[])) AS prev
WHERE id = ANY($1::bigint[]) AND id = prev.previous_id AND status IN ('pending', 'failed', 'running')
RETURNING id::text AS id, lock_id::text AS lock_id, type, group_key, on_failure, status, prev.previous_status`;

/** Opens an audit row. `$1` operation, `$2::boolean` dry run, `$3::jsonb` filter, `$4` actor, `$5::bigint` matched. */
export const INSERT_BULK_OPERATION_SQL = `
INSERT INTO action_bulk_operations (operation, dry_run, filter, actor, matched, finished_at)
VALUES ($1::text, $2::boolean, $3::jsonb, $4::text, $5::bigint, CASE WHEN $2::boolean THEN now() END)
RETURNING id::text`;

/** Adds a chunk's count. `$1::bigint` id, `$2::bigint` changed. */
export const ADD_APPLIED_SQL = `UPDATE action_bulk_operations SET applied = applied + $2::bigint WHERE id = $1::bigint`;

/** Closes an audit row. `$1::bigint` id, `$2::text` error (null: completed). */
export const FINISH_BULK_OPERATION_SQL = `
UPDATE action_bulk_operations SET finished_at = clock_timestamp(), error = $2::text WHERE id = $1::bigint`;

/**
 * Audit rows, newest first. `$1::bigint` before this id (null: from the newest), `$2::int` limit.
 * Ordered and compared on the table's bigint column `b.id`: a bare `id` in ORDER BY
 * would name the text output column and sort "9" after "10".
 */
export const LIST_BULK_OPERATIONS_SQL = `
SELECT b.id::text AS id, b.operation, b.dry_run, b.filter, b.actor, b.matched::text AS matched, b.applied::text AS applied,
       b.started_at, b.finished_at, b.error
FROM action_bulk_operations AS b
WHERE $1::bigint IS NULL OR b.id < $1::bigint
ORDER BY b.id DESC LIMIT $2::int`;

/** One audit row by id: `$1::bigint`. */
export const SELECT_BULK_OPERATION_SQL = `
SELECT b.id::text AS id, b.operation, b.dry_run, b.filter, b.actor, b.matched::text AS matched, b.applied::text AS applied,
       b.started_at, b.finished_at, b.error
FROM action_bulk_operations AS b
WHERE b.id = $1::bigint`;
