import type { FailurePolicy } from '../../vocabulary';
/**
 * The columns of a leased action (type `aq_leased_action`,
 * src/database/sql/003-leases.up.sql) that the worker reads, 64-bit ids as
 * text. Claims and finishing statements both return them, so one row type
 * serves both paths. Only what the worker uses: every column costs parsing
 * for every row of every statement (its lease deadline is local, see
 * lease-timing.ts, so `lease_expires_at` is not read).
 *
 * @param source the row or composite to select from, e.g. `c` or `(f.leased)`.
 */
export function leasedActionColumns(source: string): string {
  return `${source}.id::text AS id, ${source}.lock_id::text AS lock_id, ${source}.type AS type, ${source}.payload AS payload,
       ${source}.attempts AS attempts, ${source}.charged_attempts AS charged_attempts, ${source}.max_attempts AS max_attempts,
       ${source}.on_failure AS on_failure, ${source}.created_at AS created_at, ${source}.idempotency_key AS idempotency_key`;
}

/** An action leased to this worker by a claim or a hand-off. */
export interface LeasedActionRow {
  id: string;
  lock_id: string | null;
  type: string;
  payload: Record<string, unknown>;
  /** This attempt's number: the fencing token. */
  attempts: number;
  /** Attempts charged to the budget before this one. */
  charged_attempts: number;
  /** The budget, a handler's cap already applied. */
  max_attempts: number;
  on_failure: FailurePolicy;
  created_at: Date;
  idempotency_key: string | null;
}
