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

/**
 * The stored trace context of actions a traced statement returned without
 * one. Its `traceparent` column reads the row with the outer statement's
 * snapshot, taken before the claim function ran: an action whose insert
 * committed in between is leased (the function's own statements see it) but
 * read without its context. Parameter: `$1::bigint[]` action ids.
 */
const LATE_TRACEPARENTS_SQL = `SELECT a.id::text AS id, a.traceparent FROM actions AS a WHERE a.id = ANY($1::bigint[]) AND a.traceparent IS NOT NULL`;

/**
 * Fills in `traceparent` of the rows a traced statement returned without one
 * (see LATE_TRACEPARENTS_SQL): one primary-key read, only when such rows
 * exist. Never rejects: a failed read leaves those rows without a context.
 * @param rows leased rows of a traced statement; changed in place.
 * @param query runs a statement with parameters.
 */
export async function fillLateTraceparents(
  rows: { id: string; traceparent?: string | null }[],
  query: (text: string, values: unknown[]) => Promise<{ rows: { id: string; traceparent: string }[] }>,
): Promise<void> {
  const missing = rows.filter((r) => r.traceparent == null);
  if (missing.length === 0) return;
  // Best effort: the rows are leased already, so a failed read leaves them untraced rather than lost.
  const found = await query(LATE_TRACEPARENTS_SQL, [missing.map((r) => r.id)]).then(
    (result) => result.rows,
    () => [],
  );
  const byId = new Map(found.map((r) => [r.id, r.traceparent]));
  for (const r of missing) r.traceparent = byId.get(r.id) ?? r.traceparent;
}
