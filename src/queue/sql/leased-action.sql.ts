import type { FailurePolicy } from '../../vocabulary';
/**
 * The columns of a leased action (type `aq_leased_action`,
 * src/database/sql/003-leases.up.sql) that the worker reads, 64-bit ids as
 * text. Claims and finishing statements both return them, so one row type
 * serves both paths. Only what the worker uses: every column costs parsing
 * for every row of every statement (its lease deadline is local, see
 * lease-timing.ts, so `lease_expires_at` is not read).
 *
 * With `traced`, also the action's stored trace context (`traceparent`,
 * 049-trace-context.up.sql), read from its row by primary key: the leased
 * composite does not carry it, and the worker asks for it only while an
 * OpenTelemetry SDK is registered (src/tracing/tracing-enabled.ts).
 *
 * @param source the row or composite to select from, e.g. `c` or `(f.leased)`.
 * @param traced whether to add `traceparent`.
 */
export function leasedActionColumns(source: string, traced = false): string {
  const columns = `${source}.id::text AS id, ${source}.lock_id::text AS lock_id, ${source}.type AS type, ${source}.payload AS payload,
       ${source}.attempts AS attempts, ${source}.charged_attempts AS charged_attempts, ${source}.max_attempts AS max_attempts,
       ${source}.on_failure AS on_failure, ${source}.created_at AS created_at, ${source}.idempotency_key AS idempotency_key`;
  return traced ? `${columns},\n       (SELECT t.traceparent FROM actions AS t WHERE t.id = ${source}.id) AS traceparent` : columns;
}

/**
 * The same statement, also returning `traceparent` (see leasedActionColumns),
 * under a name of its own (each name is one prepared statement).
 */
export function tracedStatement(statement: { name: string; text: string }, source: string): { name: string; text: string } {
  return { name: `${statement.name}_traced`, text: statement.text.replace(leasedActionColumns(source), leasedActionColumns(source, true)) };
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
  /** The enqueuer's trace context; read only while tracing is enabled (absent otherwise). */
  traceparent?: string | null;
}
