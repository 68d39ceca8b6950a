import type { FailurePolicy } from '../../vocabulary';
/** Columns of an action as the API returns it (bigints as text). */
export const ACTION_COLUMNS = `
  id::text, lock_id::text, type, payload, status, attempts, max_attempts, on_failure,
  run_at, created_at, started_at, finished_at, result, last_error, idempotency_key, retry_of::text,
  charged_attempts, cancel_requested_at, quarantined, group_key, tenant`;

/** A row selected with {@link ACTION_COLUMNS}. */
export interface ActionRow {
  id: string;
  lock_id: string | null;
  type: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  max_attempts: number;
  on_failure: FailurePolicy;
  run_at: Date;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  result: unknown;
  last_error: string | null;
  idempotency_key: string | null;
  retry_of: string | null;
  charged_attempts: number;
  cancel_requested_at: Date | null;
  quarantined: boolean;
  group_key: string | null;
  tenant: string;
}
