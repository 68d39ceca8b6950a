/**
 * Claims up to `$3` claimable actions for worker `$1` and leases them for `$4` ms.
 *
 * Parameters: `$1::text` worker id, `$2::text[]` action types this worker has
 * handlers for, `$3::int` how many (the worker's free slots), `$4::int` lease
 * length in ms. Returns the claimed rows (see {@link ClaimedActionRow}).
 *
 * Why it is correct:
 * - Only heads are claimable (`is_head`). The triggers of the CreateActionQueue
 *   migration keep exactly one head per group: the smallest-id action that
 *   still holds the group. So this statement can never claim a non-head, and a
 *   batch can never hold two actions of one group (G3).
 * - `FOR UPDATE SKIP LOCKED` lets concurrent workers pass over rows another
 *   worker is claiming instead of queueing behind it; after locking, Postgres
 *   re-checks the WHERE clause on the newest row version, so a row claimed and
 *   committed by someone else meanwhile (now `running`) is dropped (G2).
 * - The selection is a `MATERIALIZED` CTE so the planner cannot inline it and
 *   run `LIMIT ... SKIP LOCKED` more than once (which could over-claim).
 * - The lease expiry comes from the database clock (`now()`); the attempt
 *   number doubles as the fencing token. `attempt_started_at` uses
 *   `clock_timestamp()` so the trace shows real start times, not the
 *   transaction's start.
 *
 * Index: `actions_claimable_idx (run_at, id) WHERE is_head AND status = 'pending'`
 * serves both the WHERE and the ORDER BY. It holds one entry per claimable head,
 * so the cost does not grow with the depth of any group (DESIGN.md trap 5).
 *
 * Rejected alternatives: `NOT EXISTS (smaller unfinished id in the group)`
 * rescans a deep group's backlog on every claim; `pg_try_advisory_lock` in the
 * WHERE clause may be evaluated for rows the LIMIT never returns and leaks locks;
 * claim-then-advisory-lock has the gap described in DESIGN.md (trap 1).
 *
 * Keep README.md "How it works" in step with this statement.
 */
export const CLAIM_ACTIONS_SQL = {
  name: 'aq_claim_actions_v2',
  // The statement runs inside the aq_claim_actions function (migration
  // AddClaimAndFinishFunctions), so that aq_finish_attempts can run the very
  // same claim for the slots a finishing batch frees. Its text is
  // CLAIM_STATEMENT_SQL below (test/claim-plan.spec.ts checks they match).
  text: `
SELECT id::text, lock_id::text, type, payload, attempts, max_attempts, on_failure,
       run_at, created_at, idempotency_key, lease_expires_at
FROM aq_claim_actions($1::text, $2::text[], $3::int, $4::int)`,
};

/**
 * The claim statement as it runs inside `aq_claim_actions`, with the function's
 * parameters written `$1::text` (p_worker), `$2::text[]` (p_types), `$3::int`
 * (p_limit), `$4::int` (p_lease_ms). For EXPLAIN in tests and the benchmark.
 */
export const CLAIM_STATEMENT_SQL = `
WITH picked AS MATERIALIZED (
  SELECT a.id
  FROM actions AS a
  WHERE a.is_head
    AND a.status = 'pending'
    AND a.run_at <= now()
    AND a.type = ANY($2::text[])
  ORDER BY a.run_at, a.id
  LIMIT $3::int
  FOR UPDATE SKIP LOCKED
)
UPDATE actions AS a
SET status             = 'running',
    attempts           = a.attempts + 1,
    lease_owner        = $1::text,
    lease_expires_at   = now() + $4::int * interval '1 millisecond',
    attempt_started_at = clock_timestamp(),
    started_at         = coalesce(a.started_at, clock_timestamp())
FROM picked
WHERE a.id = picked.id
RETURNING a.id, a.lock_id, a.type, a.payload, a.attempts, a.max_attempts,
          a.on_failure, a.run_at, a.created_at, a.idempotency_key, a.lease_expires_at`;

/** A row returned by {@link CLAIM_ACTIONS_SQL}. */
export interface ClaimedActionRow {
  id: string;
  lock_id: string | null;
  type: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  on_failure: 'block' | 'skip';
  run_at: Date;
  created_at: Date;
  idempotency_key: string | null;
  lease_expires_at: Date;
}
