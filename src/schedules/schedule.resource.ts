/** A row of action_schedules as the statements of sql/schedules.sql.ts return it. */
export interface ScheduleRow {
  name: string;
  cron: string;
  time_zone: string;
  type: string;
  payload: Record<string, unknown>;
  lock_id: string | null;
  group_key: string | null;
  max_attempts: number | null;
  catch_up: 'skip' | 'fill';
  catch_up_limit: number;
  misfire_grace_ms: number;
  source: 'code' | 'api';
  next_tick_at: Date;
  last_tick_at: Date | null;
  skipped_ticks: string;
  last_error: string | null;
  created_at: Date;
}

/** A recurring action as the REST API shows it (docs/operator-controls.md). */
export interface ScheduleResource {
  name: string;
  cron: string;
  timeZone: string;
  type: string;
  payload: Record<string, unknown>;
  lockId: string | null;
  groupKey: string | null;
  maxAttempts: number | null;
  catchUp: 'skip' | 'fill';
  catchUpLimit: number;
  misfireGraceMs: number;
  source: 'code' | 'api';
  /** The next tick to enqueue (ISO 8601, UTC): the schedule's cursor. */
  nextRunAt: string;
  lastRunAt: string | null;
  skippedTicks: number;
  lastError: string | null;
  createdAt: string;
}

/**
 * A schedule as `GET /schedules` lists it: when its payload and last error
 * cannot fit MAX_RESPONSE_BYTES beside the rest of the list, they are left out
 * (`payload` `{}`, `lastError` null) and `contentBytes` says how large they are.
 */
export interface ListedScheduleResource extends ScheduleResource {
  /** True when payload and lastError were left out; read them with `GET /schedules/:name` or by SQL. */
  contentOmitted: boolean;
  /** The sizes of what was left out; only when `contentOmitted`. */
  contentBytes?: { payload: number; lastError: number };
}

/** The resource of a row. */
export function toScheduleResource(row: ScheduleRow): ScheduleResource {
  return {
    name: row.name,
    cron: row.cron,
    timeZone: row.time_zone,
    type: row.type,
    payload: row.payload,
    lockId: row.lock_id,
    groupKey: row.group_key,
    maxAttempts: row.max_attempts,
    catchUp: row.catch_up,
    catchUpLimit: row.catch_up_limit,
    misfireGraceMs: row.misfire_grace_ms,
    source: row.source,
    nextRunAt: row.next_tick_at.toISOString(),
    lastRunAt: row.last_tick_at?.toISOString() ?? null,
    skippedTicks: Number(row.skipped_ticks),
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
  };
}
