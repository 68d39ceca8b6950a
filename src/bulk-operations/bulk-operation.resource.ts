/** A bulk operation's audit row as the API shows it (src/database/sql/037-bulk-operations.up.sql). */
export interface BulkOperationResource {
  id: string;
  operation: 'retry' | 'cancel';
  dryRun: boolean;
  filter: Record<string, unknown>;
  actor: string;
  matched: number;
  applied: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

/** A row of LIST_BULK_OPERATIONS_SQL. */
export interface BulkOperationRow {
  id: string;
  operation: 'retry' | 'cancel';
  dry_run: boolean;
  filter: Record<string, unknown>;
  actor: string;
  matched: string;
  applied: string;
  started_at: Date;
  finished_at: Date | null;
  error: string | null;
}

/** The resource of a row. */
export function toBulkOperationResource(r: BulkOperationRow): BulkOperationResource {
  return {
    id: r.id,
    operation: r.operation,
    dryRun: r.dry_run,
    filter: r.filter,
    actor: r.actor,
    matched: Number(r.matched),
    applied: Number(r.applied),
    startedAt: r.started_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
    error: r.error,
  };
}
