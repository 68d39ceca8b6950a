/*
 * The statements of the pause and drain routes. Pausing and resuming go
 * through the SQL functions src/database/functions/aq_pause.sql and
 * src/database/functions/aq_resume.sql, the same ones an operator calls from
 * psql, so both paths behave alike.
 */

/** The columns of a pause as the API shows it; `p` is action_pauses, `k` its group key (if any). */
const PAUSE_COLUMNS = `p.id::text AS id, p.scope, p.type, p.lock_id::text AS lock_id, k.group_key, p.tenant, p.reason, p.created_at, p.until`;

/**
 * Pauses one target: `$1::text` scope, `$2::text` type, `$3::bigint` lock id,
 * or `$6::text` string group key (interned if new, so a group can be paused
 * before its first action), `$4::text` reason, `$5::bigint` ms or null (until resumed).
 * The join cannot see a key this very statement interned (one snapshot), so
 * the key given answers for itself: a first pause by key shows it too.
 */
export const PAUSE_SQL = `
WITH p AS (SELECT * FROM aq_pause($1::text, $2::text,
                                  CASE WHEN $6::text IS NULL THEN $3::bigint ELSE aq_intern_group_key($6::text) END,
                                  $4::text, $5::bigint))
SELECT ${PAUSE_COLUMNS.replace('k.group_key', 'coalesce(k.group_key, $6::text) AS group_key')}
FROM p LEFT JOIN action_group_keys AS k ON k.lock_id = p.lock_id`;

/**
 * Pauses one tenant (aq_pause_tenant, 053): `$1::text` tenant, `$2::text`
 * reason, `$3::bigint` ms or null (until resumed).
 */
export const PAUSE_TENANT_SQL = `
SELECT ${PAUSE_COLUMNS} FROM aq_pause_tenant($1::text, $2::text, $3::bigint) AS p LEFT JOIN action_group_keys AS k ON false`;

/** Resumes one tenant: `$1::text` tenant; `resumed` false when it was not paused. */
export const RESUME_TENANT_SQL = `SELECT aq_resume_tenant($1::text) AS resumed`;

/**
 * Active pauses (timed ones not expired) in id order, after id `$1::bigint`,
 * at most `$2::int`, of scope `$3::text` (null: any). Primary-key walk.
 */
export const LIST_PAUSES_SQL = `
SELECT ${PAUSE_COLUMNS}
FROM action_pauses AS p LEFT JOIN action_group_keys AS k ON k.lock_id = p.lock_id
WHERE p.id > $1::bigint AND ($3::text IS NULL OR p.scope = $3::text) AND (p.until IS NULL OR p.until > now())
ORDER BY p.id
LIMIT $2::int`;

/**
 * Resumes pause `$1::bigint` (the workers are woken by the table's trigger);
 * returns its row, `active` false when it was a timed pause that had ended.
 * (A CTE, so that the driver returns rows, not a DELETE's row count.)
 */
export const RESUME_PAUSE_SQL = `
WITH gone AS (DELETE FROM action_pauses AS p WHERE p.id = $1::bigint RETURNING p.id, p.until)
SELECT g.id::text AS id, (g.until IS NULL OR g.until > now()) AS active FROM gone AS g`;

/**
 * Resumes one target, as the psql functions do: `$1::text` scope, `$2::text`
 * type, `$3::bigint` lock id, or `$4::text` string group key (a key never
 * used was never paused); `resumed` false when it was not paused.
 */
export const RESUME_TARGET_SQL = `
SELECT CASE WHEN $4::text IS NULL THEN aq_resume($1::text, $2::text, $3::bigint)
            ELSE aq_resume_group_key($4::text) END AS resumed`;

/** Pauses the whole queue for a drain: `$1::text` reason. */
export const PAUSE_QUEUE_SQL = `SELECT id::text AS id FROM aq_pause_queue($1::text)`;

/** Resumes the queue; true when it was paused. */
export const RESUME_QUEUE_SQL = `SELECT aq_resume_queue() AS resumed`;

/**
 * The drain's state: the active queue pause (if any) and how many actions are
 * running (actions_running_idx, the live queue only).
 */
export const DRAIN_STATE_SQL = `
SELECT (SELECT p.created_at FROM action_pauses AS p
        WHERE p.scope = 'queue' AND (p.until IS NULL OR p.until > now())) AS paused_since,
       (SELECT p.reason FROM action_pauses AS p
        WHERE p.scope = 'queue' AND (p.until IS NULL OR p.until > now())) AS reason,
       (SELECT count(*) FROM actions WHERE status = 'running')::int AS running`;
