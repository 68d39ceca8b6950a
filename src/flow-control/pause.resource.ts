import type { PauseScope } from './pause-scope';

/**
 * One active pause, as `GET /pauses` and `POST /pauses` show it.
 * @publicApi
 */
export interface PauseResource {
  /** The pause's id (a 64-bit integer as a decimal string): `DELETE /pauses/:id` resumes it. */
  id: string;
  /** What is paused: the whole queue, one action type, or one group. */
  scope: PauseScope;
  /** The paused action type (scope `type`), else null. */
  type: string | null;
  /** The paused group's lock id (scope `group`), else null. */
  lockId: string | null;
  /** The paused group's string key, when it has one. */
  groupKey: string | null;
  /** The paused tenant (scope `tenant`), else null. */
  tenant: string | null;
  /** Why, as given by whoever paused (a handler's back-off names its action). */
  reason: string | null;
  /** When it was paused (ISO 8601). */
  createdAt: string;
  /** When a timed pause ends by itself (ISO 8601), or null: until resumed. */
  until: string | null;
}

/**
 * The drain of the whole queue (`/queue/drain`): while `draining`, no
 * instance claims anything; `drained` once nothing is running either.
 * @publicApi
 */
export interface DrainResource {
  /** The queue is paused (by a drain or any other queue pause). */
  draining: boolean;
  /** Actions running now, on every instance. */
  running: number;
  /** Draining and nothing running: safe to stop every instance or to work on the database. */
  drained: boolean;
  /** Since when the queue is paused (ISO 8601), or null. */
  since: string | null;
  /** The queue pause's reason, or null. */
  reason: string | null;
}
