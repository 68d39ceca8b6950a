import { ACTION_COLUMNS } from './action-columns.sql';

/**
 * Inserts a batch in the order of the arrays (ids, and so group order, follow
 * `ord`). The caller passes the rows sorted by lock id, each group in input
 * order, so the insert trigger takes the group locks in lock id order.
 * The triggers assign ids and heads; a repeated idempotency key inserts nothing
 * (the caller then reads the existing action).
 * Parameters (arrays, one element per action): `$1::bigint[]` lock ids,
 * `$2::text[]` types, `$3::jsonb[]` payloads, `$4::timestamptz[]` run_at (null
 * = now), `$5::int[]` max attempts, `$6::text[]` failure policies,
 * `$7::text[]` idempotency keys, `$8::bigint[]` retry_of, `$9::text[]` string
 * group keys (the trigger interns each into lock_id; src/database/sql/017-group-keys.up.sql);
 * `$10::text` the enqueuer's trace context for every row (a W3C traceparent or
 * null; src/tracing/traceparent.ts), `$11::text[]` tenants (each row's; 052-tenants.up.sql).
 */
export const INSERT_ACTIONS_SQL = `
INSERT INTO actions (lock_id, type, payload, run_at, max_attempts, on_failure, idempotency_key, retry_of, group_key, traceparent, tenant)
SELECT lock_id, type, payload, coalesce(run_at, now()), max_attempts, on_failure, idempotency_key, retry_of, group_key, $10::text, tenant
FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::text[], $11::text[])
     WITH ORDINALITY AS t(lock_id, type, payload, run_at, max_attempts, on_failure, idempotency_key, retry_of, group_key, tenant, ord)
ORDER BY ord
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING ${ACTION_COLUMNS}`;

/**
 * Interns string group keys (src/database/sql/017-group-keys.up.sql) in the
 * order given, before the insert, so the caller can sort a batch by lock id.
 * A new key's row stays locked until commit. `$1::text[]` keys, sorted.
 * Returns `group_key`, `lock_id` (text).
 */
export const INTERN_GROUP_KEYS_SQL = `
SELECT k AS group_key, aq_intern_group_key(k)::text AS lock_id
FROM unnest($1::text[]) WITH ORDINALITY AS t(k, ord)`;

/** Existing actions by idempotency key. Parameter: `$1::text[]` keys. */
export const SELECT_BY_IDEMPOTENCY_KEYS_SQL = `
SELECT ${ACTION_COLUMNS} FROM actions WHERE idempotency_key = ANY($1::text[])`;
