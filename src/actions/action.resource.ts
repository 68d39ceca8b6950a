import type { AttemptOutcome } from './action-status';
import type { QueueStats } from './queue-stats.reader';
import { ActionRow } from './sql/action-columns.sql';

/** The action resource of the REST API (see CONTRACT.md). 64-bit ids are decimal strings. */
export interface ActionResource {
  id: string;
  lockId: string | null;
  type: string;
  payload: Record<string, unknown>;
  status: ActionRow['status'];
  attempts: number;
  maxAttempts: number;
  onFailure: 'block' | 'skip';
  runAt: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: unknown;
  lastError: string | null;
  idempotencyKey: string | null;
  retryOf: string | null;
}

/** One trace entry: an ended execution attempt. */
export interface AttemptResource {
  attempt: number;
  workerId: string;
  startedAt: string;
  finishedAt: string;
  outcome: AttemptOutcome;
  error: string | null;
}

/** `GET /groups/:lockId`. */
export interface GroupResource {
  lockId: string;
  head: ActionResource | null;
  running: boolean;
  pendingCount: number;
  blocked: boolean;
  blockedReason: string | null;
}

/** `GET /stats` (see {@link QueueStats}). */
export type StatsResource = QueueStats;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Maps a database row to the API resource. */
export function toActionResource(row: ActionRow): ActionResource {
  return {
    id: row.id,
    lockId: row.lock_id,
    type: row.type,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    onFailure: row.on_failure,
    runAt: row.run_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    result: row.result ?? null,
    lastError: row.last_error,
    idempotencyKey: row.idempotency_key,
    retryOf: row.retry_of,
  };
}

/** Maps a trace row to the API resource. */
export function toAttemptResource(row: {
  attempt: number;
  worker_id: string;
  started_at: Date;
  finished_at: Date;
  outcome: AttemptResource['outcome'];
  error: string | null;
}): AttemptResource {
  return {
    attempt: row.attempt,
    workerId: row.worker_id,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at.toISOString(),
    outcome: row.outcome,
    error: row.error,
  };
}
