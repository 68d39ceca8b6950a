import type { ActionStatus, AttemptOutcome, FailurePolicy } from '../vocabulary';
import type { QueueStats } from './stats/queue-stats.reader';
import type { TenantsStats } from './stats/tenant-stats.reader';
import { ActionRow } from './sql/action-columns.sql';

/**
 * An action as the REST API returns it (README.md, "REST API").
 * 64-bit ids are decimal strings; times are ISO 8601 strings in UTC.
 * @publicApi
 */
export interface ActionResource {
  /** The action id. */
  id: string;
  /** The group, or null: belongs to no group. For a string-keyed action, the lock id the database interned its key under. */
  lockId: string | null;
  /** The string group key it was enqueued with, or null (an integer group, or none). */
  groupKey: string | null;
  /** The action type (the handler that runs it). */
  type: string;
  /** The JSON object handed to the handler. */
  payload: Record<string, unknown>;
  /** `pending`, `running`, or final: `done`, `failed`, `cancelled`. */
  status: ActionStatus;
  /** Executions started so far. */
  attempts: number;
  /** Executions allowed before the action fails. */
  maxAttempts: number;
  /** What a final failure does to the group. */
  onFailure: FailurePolicy;
  /** Not claimable before this instant. */
  runAt: string;
  /** When it was enqueued. */
  createdAt: string;
  /** When its first attempt started, or null. */
  startedAt: string | null;
  /** When it reached its final state, or null. */
  finishedAt: string | null;
  /** What the handler returned (JSON), once `done`. */
  result: unknown;
  /** The error of the last failed attempt, or null. */
  lastError: string | null;
  /** The key given at enqueue, or null. */
  idempotencyKey: string | null;
  /** The failed `skip` action this one retries, if any. */
  retryOf: string | null;
  /** Attempts counted toward maxAttempts (releases and unproven lost leases are not). */
  chargedAttempts: number;
  /** When cancellation of the running action was requested, or null. */
  cancelRequestedAt: string | null;
  /** A suspect: lost with its instance twice in a row (once alone or with one other) or three times; runs one per instance, and a further loss is charged (poison detection). */
  quarantined: boolean;
  /** The tenant it belongs to (`default` when enqueued without one; docs/tenants.md). */
  tenant: string;
}

/**
 * What cancel and retry answer: the action, bounded like `GET /actions/:id`.
 * When its payload, result and error together are over MAX_RESPONSE_BYTES,
 * the command still takes effect and `contentOmitted` is true: `payload` is
 * `{}`, `result` and `lastError` are null (read them by SQL).
 * @publicApi
 */
export interface ActionCommandResource extends ActionResource {
  /** True when payload, result and lastError were left out: together over MAX_RESPONSE_BYTES. */
  contentOmitted: boolean;
}

/**
 * How large an action's content is, in bytes as stored: payload and result as
 * JSON text, the last error, and (on `GET /actions/:id`) the errors and stacks
 * of its trace. Sent with an action whose content was left out.
 * @publicApi
 */
export interface ContentBytesResource {
  /** Bytes of the payload as JSON text. */
  payload: number;
  /** Bytes of the result as JSON text (0: none). */
  result: number;
  /** Bytes of the last error (0: none). */
  lastError: number;
  /** Bytes of the trace's worker ids, errors and stacks; only on `GET /actions/:id`. */
  trace?: number;
}

/**
 * An action as a read bounded by MAX_RESPONSE_BYTES sends it (list pages, a
 * group's head, `GET /actions/:id`): when its content cannot fit the response
 * (or `content=false` asked so), `contentOmitted` is true, `payload` is `{}`,
 * `result` and `lastError` are null, and `contentBytes` says how large they are.
 * @publicApi
 */
export interface BoundedActionResource extends ActionResource {
  /** True when payload, result and lastError were left out. */
  contentOmitted: boolean;
  /** The sizes of what was left out; only when `contentOmitted`. */
  contentBytes?: ContentBytesResource;
}

/**
 * One trace entry: an ended execution attempt.
 * @publicApi
 */
export interface AttemptResource {
  /** The attempt number (the fencing token). */
  attempt: number;
  /** The worker that ran it (WORKER_ID). */
  workerId: string;
  /** When it started (database clock). */
  startedAt: string;
  /** When it ended (database clock). */
  finishedAt: string;
  /** How it ended. */
  outcome: AttemptOutcome;
  /** Its error, or null. */
  error: string | null;
  /** The stack of the thrown Error (bounded), or null. */
  errorStack: string | null;
  /** The id of the first action of the ordered chunk this attempt ran in, or null (run alone). */
  chunkOf: string | null;
}

/**
 * A group's state, as `GET /groups/:lockId`.
 * @publicApi
 */
export interface GroupResource {
  /** The group key, canonical decimal string. */
  lockId: string;
  /** The string group key interned under this lock id, or null for an integer group. */
  groupKey: string | null;
  /** The action that holds the group, or null when the group is empty; without its content when that is over MAX_RESPONSE_BYTES. */
  head: BoundedActionResource | null;
  /** Whether the head is running now. */
  running: boolean;
  /** Pending actions of the group, the head included. */
  pendingCount: number;
  /** True when the head failed under `block`, or no handler of this instance runs its type. */
  blocked: boolean;
  /** Why it is blocked, in words, or null. */
  blockedReason: string | null;
  /**
   * True when an active pause holds the group back: its own, its head's type
   * or the whole queue's. Nothing of the group starts until it is resumed;
   * `blocked` stays about failures.
   */
  paused: boolean;
  /** The pause that holds it (its own first, then its head's type, then the queue's), or null. */
  pausedBy: GroupPauseResource | null;
  /** The state its handlers stored (`ctx.groupState`): its version and last change, or null when none; the value is at `GET /groups/:lockId/state`. */
  storedState: GroupStoredStateSummary | null;
}

/**
 * `storedState` of `GET /groups/:lockId`: the version and last change of the group's stored state.
 * @publicApi
 */
export interface GroupStoredStateSummary {
  /** Completed actions that changed it (1 for the first). */
  version: number;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}

/**
 * The pause holding a group back, as `GET /groups/:lockId` shows it; `DELETE /pauses/{id}` ends it.
 * @publicApi
 */
export interface GroupPauseResource {
  /** The pause's id, decimal string. */
  id: string;
  /** What it covers: `group` (this one), `type` (its head's type) or `queue`. */
  scope: 'queue' | 'type' | 'group';
  /** Why, as given, or null. */
  reason: string | null;
  /** When a timed pause ends (ISO 8601, UTC), or null: until resumed. */
  until: string | null;
}

/**
 * Queue-wide counts, as `GET /stats` (see {@link QueueStats}: which counts are
 * estimates, the pending breakdown, the age of the oldest due action), and
 * the live work of the tenants with the largest backlog (see {@link TenantsStats}).
 * @publicApi
 */
export type StatsResource = QueueStats & { tenants: TenantsStats };

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Maps a database row to the API resource. */
export function toActionResource(row: ActionRow): ActionResource {
  return {
    id: row.id,
    lockId: row.lock_id,
    groupKey: row.group_key,
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
    chargedAttempts: row.charged_attempts,
    cancelRequestedAt: iso(row.cancel_requested_at),
    quarantined: row.quarantined,
    tenant: row.tenant,
  };
}

/**
 * Maps a row read with its content left out where it did not fit
 * (`content_omitted`) to a bounded resource, with the sizes of what was left out.
 */
export function toBoundedActionResource(
  row: ActionRow & { content_omitted: boolean },
  bytes: { payload: number; result: number; lastError: number; trace?: number },
): BoundedActionResource {
  const resource = toActionResource(row);
  return row.content_omitted ? { ...resource, contentOmitted: true, contentBytes: bytes } : { ...resource, contentOmitted: false };
}

/** Maps a row a command returned (cancel, retry) to its answer. */
export function toActionCommandResource(row: ActionRow & { content_omitted: boolean }): ActionCommandResource {
  return { ...toActionResource(row), contentOmitted: row.content_omitted };
}

/** Maps a trace row to the API resource. */
export function toAttemptResource(row: {
  attempt: number;
  worker_id: string;
  started_at: Date;
  finished_at: Date;
  outcome: AttemptResource['outcome'];
  error: string | null;
  error_stack: string | null;
  chunk_of?: string | null;
}): AttemptResource {
  return {
    attempt: row.attempt,
    workerId: row.worker_id,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at.toISOString(),
    outcome: row.outcome,
    error: row.error,
    errorStack: row.error_stack,
    chunkOf: row.chunk_of ?? null,
  };
}
