/**
 * Ends a batch of attempts in one statement and one commit, through the
 * `aq_finish_attempts` function (migration AddClaimAndFinishFunctions):
 *
 * 1. Updates each action to its next state and appends one trace row per
 *    attempt. Fenced per row: an action is touched only while it is still
 *    `running` under this worker's lease with the same attempt number (the
 *    fencing token). A row that no longer matches (the lease expired and the
 *    reaper or another worker took over) is left alone and gets no trace row
 *    from here; the caller logs it as a fenced completion.
 * 2. When a head released its group, the `actions_after_release` trigger
 *    promotes the next head; the function then hands those new heads straight
 *    to this worker (leased like a claim) when their type is in `$9`, so a
 *    serial group costs about one commit per action.
 * 3. Claims up to `$11` minus the handed-off count more actions for this
 *    worker with the claim statement (aq_claim_actions), so a busy worker
 *    needs one statement and one commit per batch, not a finish and a claim.
 *
 * Parameters (arrays of equal length, one element per attempt):
 * `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]` attempt numbers,
 * `$4::text[]` next status (`done`, `pending` for a retry or release, `failed`),
 * `$5::jsonb[]` results (for `done`), `$6::text[]` errors, `$7::int[]` retry
 * delay in ms (for `pending`), `$8::text[]` trace outcome (`done`, `error`,
 * `released`), `$9::text[]` types to hand off (empty: no hand-off),
 * `$10::int` lease length in ms for handed-off and claimed actions, `$11::int`
 * how many actions to take in all (hand-offs plus claims; 0: none).
 *
 * A `released` attempt (graceful shutdown) does not count toward maxAttempts:
 * the budget grows by one, so the attempt number stays a unique fencing token.
 *
 * An attempt whose group a producer holds locked right now (an open
 * transaction that enqueued into it) is not touched: it comes back as
 * `{ kind: 'deferred', id, attempt }` and the caller sends it again shortly,
 * so one slow producer never stalls the other groups of the batch.
 *
 * Returns rows `{ kind: 'finished', id, attempt }` for each recorded attempt and
 * `{ kind: 'claimed', id, attempt, lock_id, type, payload, max_attempts,
 * on_failure, created_at, idempotency_key }` for each handed-off action.
 */
export const FINISH_ATTEMPTS_SQL = {
  name: 'aq_finish_attempts_v3',
  text: `
SELECT kind, id::text, attempt, lock_id::text, type, payload, max_attempts, on_failure, created_at, idempotency_key
FROM aq_finish_attempts($1::text, $2::bigint[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::int[], $8::text[], $9::text[], $10::int, $11::int)`,
};

/** A row returned by {@link FINISH_ATTEMPTS_SQL}. */
export interface FinishAttemptsRow {
  kind: 'finished' | 'claimed' | 'deferred';
  id: string;
  attempt: number;
  lock_id: string | null;
  type: string | null;
  payload: Record<string, unknown> | null;
  max_attempts: number | null;
  on_failure: 'block' | 'skip' | null;
  created_at: Date | null;
  idempotency_key: string | null;
}
