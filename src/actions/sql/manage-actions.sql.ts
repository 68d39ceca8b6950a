import { ACTION_COLUMNS } from './action-columns.sql';

/** One action. `$1::bigint` id. */
export const SELECT_ACTION_SQL = `SELECT ${ACTION_COLUMNS} FROM actions WHERE id = $1::bigint`;

/** The trace of one action, oldest first. `$1::bigint` id. */
export const SELECT_TRACE_SQL = `
SELECT attempt, worker_id, started_at, finished_at, outcome, error, error_stack, chunk_of::text AS chunk_of
FROM action_attempts WHERE action_id = $1::bigint ORDER BY id`;

/**
 * A page of actions in id order. `$1::text` status, `$2::text` type (each null
 * = any), `$3::bigint` after this id, `$4::int` limit. Run unnamed, so the plan
 * is made for the actual values and the partial status indexes
 * (actions_pending_idx, actions_failed_idx, ...) serve a status filter;
 * `done` walks the primary key.
 */
export const LIST_ACTIONS_SQL = `
SELECT ${ACTION_COLUMNS} FROM actions
WHERE ($1::text IS NULL OR status = $1::text)
  AND ($2::text IS NULL OR type = $2::text)
  AND id > $3::bigint
ORDER BY actions.id -- the bigint column, not the id::text output column
LIMIT $4::int`;

/**
 * A page of one group's actions in id order: the holding rows come from
 * actions_group_holding_idx, the finished ones from actions_group_finished_idx.
 * `$1::text` status, `$2::bigint` the lock id, `$3::text` type, `$4::bigint` after this id, `$5::int` limit.
 */
export const LIST_GROUP_ACTIONS_SQL = `
SELECT ${ACTION_COLUMNS} FROM (
  (SELECT * FROM actions
   WHERE lock_id = $2::bigint AND lock_id IS NOT NULL AND holds_group AND id > $4::bigint
     AND ($1::text IS NULL OR status = $1::text) AND ($3::text IS NULL OR type = $3::text)
   ORDER BY lock_id, id LIMIT $5::int)
  UNION ALL
  (SELECT * FROM actions
   WHERE lock_id = $2::bigint AND lock_id IS NOT NULL AND NOT holds_group AND id > $4::bigint
     AND ($1::text IS NULL OR status = $1::text) AND ($3::text IS NULL OR type = $3::text)
   ORDER BY lock_id, id LIMIT $5::int)
) AS a
ORDER BY a.id -- the bigint column, not the id::text output column
LIMIT $5::int`;

/** Wakes the workers (src/database/sql/002-wake-up.up.sql). */
export const NOTIFY_READY_SQL = `SELECT aq_wake_workers()`;

/** Locks a failed `skip` action for re-enqueueing, unless it was already retried. `$1::bigint` id. */
export const LOCK_FAILED_SKIP_SQL = `
SELECT ${ACTION_COLUMNS},
       (SELECT id::text FROM actions r WHERE r.retry_of = a.id LIMIT 1) AS retried_as
FROM actions a
WHERE id = $1::bigint AND status = 'failed' AND on_failure = 'skip'
FOR UPDATE`;

/** The lock id a string group key was interned under (none: never used). `$1::text` key. */
export const SELECT_GROUP_KEY_LOCK_ID_SQL = `SELECT lock_id::text AS lock_id FROM action_group_keys WHERE group_key = $1::text`;

/** The string group key interned under a lock id (none: an integer group). `$1::bigint` lock id. */
export const SELECT_LOCK_ID_GROUP_KEY_SQL = `SELECT group_key FROM action_group_keys WHERE lock_id = $1::bigint`;

/**
 * The active pause holding a group back: its own, its head's type, or the
 * queue's, in that order (action_pauses, 030: a handful of rows).
 * `$1::bigint` lock id, `$2::text` the head's type (null: no head).
 */
export const SELECT_GROUP_PAUSE_SQL = `
SELECT p.id::text AS id, p.scope, p.reason, p.until
FROM action_pauses AS p
WHERE (p.until IS NULL OR p.until > now())
  AND ((p.scope = 'group' AND p.lock_id = $1::bigint) OR (p.scope = 'type' AND p.type = $2::text) OR p.scope = 'queue')
ORDER BY CASE p.scope WHEN 'group' THEN 0 WHEN 'type' THEN 1 ELSE 2 END, p.id
LIMIT 1`;

/** A group's state. `$1::bigint` lock id. */
export const SELECT_GROUP_SQL = `
SELECT g.head_id::text AS head_id,
       (SELECT count(*)::int FROM actions a WHERE a.lock_id = g.lock_id AND a.holds_group AND a.status = 'pending') AS pending_count
FROM action_groups g WHERE g.lock_id = $1::bigint`;

/**
 * Bytes an action's resource takes to send: its payload and result as JSON
 * text and its last error. Measured by PostgreSQL, so a row too large to
 * send is never fetched into the service to find out.
 */
const RESOURCE_BYTES = `octet_length(payload::text) + coalesce(octet_length(result::text), 0) + coalesce(octet_length(last_error), 0)`;

/**
 * One action, unless its resource is over `$2::bigint` bytes (MAX_RESPONSE_BYTES):
 * then no row (see ACTION_RESOURCE_BYTES_SQL for why). `$1::bigint` id.
 */
export const SELECT_BOUNDED_ACTION_SQL = `SELECT ${ACTION_COLUMNS} FROM actions WHERE id = $1::bigint AND ${RESOURCE_BYTES} <= $2::bigint`;

/**
 * Bytes an action's trace takes to send: per attempt its worker id, error and
 * stack (the fixed fields are left out). A trace has no length limit (every
 * manual retry grants a fresh budget), so GET /actions/:id counts it against
 * MAX_RESPONSE_BYTES. Measured from the stored sizes (no detoasting). `$1::bigint` id.
 */
export const ACTION_TRACE_BYTES_SQL = `
SELECT coalesce(sum(octet_length(worker_id) + coalesce(octet_length(error), 0) + coalesce(octet_length(error_stack), 0)), 0) AS bytes
FROM action_attempts WHERE action_id = $1::bigint`;

/**
 * Whether the action `$1::bigint` is over `$2::bigint` bytes (MAX_RESPONSE_BYTES)
 * to send, as one row `omit` for an UPDATE's FROM: measured once, before the
 * update (a command changes neither payload, result nor error).
 */
const COMMAND_SIZE = `(SELECT ${RESOURCE_BYTES} > $2::bigint AS omit FROM actions WHERE id = $1::bigint)`;

/**
 * An action's columns, with its content (payload, result, last error) left
 * out where the SQL boolean `omit` is true: payload `{}`, result and last
 * error null, and `content_omitted` true. CASE evaluates lazily, so an
 * omitted row's content is never detoasted nor sent to the service.
 */
const actionColumnsOmitting = (omit: string): string => `
  id::text, lock_id::text, type, CASE WHEN ${omit} THEN '{}'::jsonb ELSE payload END AS payload, status, attempts, max_attempts, on_failure,
  run_at, created_at, started_at, finished_at, CASE WHEN ${omit} THEN NULL ELSE result END AS result,
  CASE WHEN ${omit} THEN NULL ELSE last_error END AS last_error, idempotency_key, retry_of::text,
  charged_attempts, cancel_requested_at, quarantined, group_key, tenant, ${omit} AS content_omitted`;

/**
 * An action's columns as a command (cancel, retry) returns them, with `size`
 * from {@link COMMAND_SIZE}: over MAX_RESPONSE_BYTES, its content is left out
 * ({@link actionColumnsOmitting}), so that an oversize row (stored before the
 * payload limit, or by an operator who lifted it) is never fetched to answer a command.
 */
const COMMAND_RESULT_COLUMNS = actionColumnsOmitting('size.omit');

/**
 * Cancels an action. Pending or failed: `cancelled` at once (a cancelled head
 * releases its group; the release trigger promotes the next one). Running:
 * only the request is recorded (cancel_requested_at); the holder's next
 * heartbeat aborts the handler, and the action ends `cancelled` once the
 * handler has stopped or its lease has expired (007 and 008 in
 * src/database/sql), so its group moves on only then. `$1::bigint` id,
 * `$2::bigint` MAX_RESPONSE_BYTES; returns {@link COMMAND_RESULT_COLUMNS}
 * and `previous_status`, the status before the cancel (for the lifecycle
 * events: a failed head's cancel unblocks its group). It is read from the
 * statement's snapshot: when a concurrent change (the worker ending the
 * attempt) went first, the row updated is the newer one and this column may
 * still name the older status, so at worst the `unblocked` event of that race
 * is missed (events are at most once; the row is the record).
 */
export const CANCEL_ACTION_SQL = `
UPDATE actions
SET status              = CASE WHEN status = 'running' THEN status ELSE 'cancelled' END,
    finished_at         = CASE WHEN status = 'running' THEN finished_at ELSE clock_timestamp() END,
    cancel_requested_at = coalesce(cancel_requested_at, clock_timestamp())
FROM ${COMMAND_SIZE} AS size, (SELECT status AS previous_status FROM actions WHERE id = $1::bigint) AS prev
WHERE id = $1::bigint AND status IN ('pending', 'failed', 'running')
RETURNING ${COMMAND_RESULT_COLUMNS}, prev.previous_status`;

/**
 * Retry in place (policy `block`): the failed head becomes pending again, still
 * the head, with a fresh budget: no attempt charged, `max_attempts` unchanged
 * (attempt numbers keep growing, so they stay unique fencing tokens).
 * `$1::bigint` id, `$2::bigint` MAX_RESPONSE_BYTES; returns
 * {@link COMMAND_RESULT_COLUMNS}.
 */
export const RETRY_IN_PLACE_SQL = `
UPDATE actions
SET status = 'pending', run_at = now(), finished_at = NULL, charged_attempts = 0,
    cancel_requested_at = NULL, quarantined = false, uncharged_losses = 0
FROM ${COMMAND_SIZE} AS size
WHERE id = $1::bigint AND status = 'failed' AND on_failure = 'block'
RETURNING ${COMMAND_RESULT_COLUMNS}`;

/** The resource bytes of one action (no row: it does not exist). `$1::bigint` id. */
export const ACTION_RESOURCE_BYTES_SQL = `SELECT ${RESOURCE_BYTES} AS bytes FROM actions WHERE id = $1::bigint`;

/**
 * An action's content sizes in bytes as columns `payload_bytes`, `result_bytes`
 * and `last_error_bytes` (bigint): what {@link RESOURCE_BYTES} adds up, per part,
 * so that an answer that leaves the content out can say how large it is.
 * `t` names the actions row.
 */
const contentBytesColumns = (t: string): string =>
  `octet_length(${t}.payload::text)::bigint AS payload_bytes, coalesce(octet_length(${t}.result::text), 0)::bigint AS result_bytes, ` +
  `coalesce(octet_length(${t}.last_error), 0)::bigint AS last_error_bytes`;

/** A row's content sizes as {@link contentBytesColumns} return them (bigints as text). */
export interface ContentBytesRow {
  payload_bytes: string;
  result_bytes: string;
  last_error_bytes: string;
}

/**
 * The ids and content sizes of a page (`sql`: LIST_ACTIONS_SQL or
 * LIST_GROUP_ACTIONS_SQL, with their parameters), in id order: the service fits
 * the page to MAX_RESPONSE_BYTES (fitToBudget) before fetching any payload.
 */
export const pageSizesSql = (sql: string): string => `SELECT page.id, ${contentBytesColumns('page')} FROM (${sql}) AS page ORDER BY page.id::bigint`;

/**
 * Actions by id, in id order, those of `$2::bigint[]` without their content
 * (`content_omitted`). `$1::bigint[]` ids.
 */
export const SELECT_LISTED_ACTIONS_SQL = `
SELECT ${actionColumnsOmitting('(actions.id = ANY($2::bigint[]))')}
FROM actions WHERE id = ANY($1::bigint[]) ORDER BY actions.id`;

/**
 * One action with its content sizes ({@link contentBytesColumns}), its content
 * left out when payload, result and last error together are over `$2::bigint`
 * bytes (-1: always). `$1::bigint` id; no row: it does not exist.
 */
export const SELECT_ACTION_WITHIN_SQL = `
SELECT ${actionColumnsOmitting('s.omit')}, s.payload_bytes, s.result_bytes, s.last_error_bytes
FROM actions CROSS JOIN LATERAL (
  SELECT b.*, b.payload_bytes + b.result_bytes + b.last_error_bytes > $2::bigint AS omit
  FROM (SELECT ${contentBytesColumns('actions')}) AS b
) AS s
WHERE actions.id = $1::bigint`;

/**
 * The trace of one action, oldest first, without its content (each attempt's
 * error and stack null): what `GET /actions/:id?content=false` sends. `$1::bigint` id.
 */
export const SELECT_TRACE_WITHOUT_CONTENT_SQL = `
SELECT attempt, worker_id, started_at, finished_at, outcome, NULL AS error, NULL AS error_stack, chunk_of::text AS chunk_of
FROM action_attempts WHERE action_id = $1::bigint ORDER BY id`;
