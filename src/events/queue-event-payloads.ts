import type { AttemptOutcome } from '../vocabulary';

/**
 * What every event says about its action. 64-bit ids as decimal strings, as
 * the REST resources give them.
 * @publicApi
 */
export interface QueueEventBase {
  /** The action's id. */
  actionId: string;
  /** Its group's lock id; null for an action of no group. */
  lockId: string | null;
  /**
   * Its group's string key, where the event's source read it: operators'
   * commands (retry, cancel) do; the worker's events leave it out (undefined),
   * because the worker's statements do not fetch it (look it up with
   * `ActionQueue.group(lockId)` when needed).
   */
  groupKey?: string | null;
  /** The action type (its handler's name). */
  type: string;
  /** When this instance knew the change committed (its own clock). */
  at: Date;
}

/** `completed`: the attempt's handler returned; the action is `done`. @publicApi */
export interface ActionCompletedEvent extends QueueEventBase {
  /** The attempt number (the fencing token) that completed it. */
  attempt: number;
}

/** `failed`: an attempt ended in error. @publicApi */
export interface ActionFailedEvent extends QueueEventBase {
  /** The attempt number that failed. */
  attempt: number;
  /** The trace's outcome of the attempt (`error`, `timeout`, ...). */
  outcome: AttemptOutcome;
  /** The error's message, as `lastError` stores it. */
  error: string;
  /** true: the action is `pending` again and runs after `retryInMs`; false: it is `failed` for good. */
  willRetry: boolean;
  /** With `willRetry`: the back-off before the next attempt (ms). */
  retryInMs?: number;
}

/** `retried`: an operator retried a failed action. @publicApi */
export interface ActionRetriedEvent extends QueueEventBase {
  /** true: pending again in place (policy `block`); false: copied to its group's tail (policy `skip`). */
  inPlace: boolean;
  /** The action that runs now: `actionId` itself in place, else the copy's id. */
  retriedAs: string;
}

/** `cancelled`: the action is `cancelled`. @publicApi */
export interface ActionCancelledEvent extends QueueEventBase {
  /**
   * `command`: an operator's cancel of a pending or failed action; `worker`: a
   * running action's handler stopped after its cancellation was requested (or,
   * when it never stopped, this instance's reaper ended its expired lease).
   */
  by: 'command' | 'worker';
  /** With `by: 'worker'`: the attempt that was stopped. */
  attempt?: number;
}

/** `blocked`: a group waits for an operator, behind an action that failed for good under `block`. @publicApi */
export interface GroupBlockedEvent extends QueueEventBase {
  /** The group's lock id (a blocked group always has one). */
  lockId: string;
  /** The failed action's last error. */
  error: string;
}

/** `unblocked`: an operator's retry or cancel of the failed action released its group. @publicApi */
export interface GroupUnblockedEvent extends QueueEventBase {
  /** The group's lock id. */
  lockId: string;
  /** The command that released it. */
  by: 'retry' | 'cancel';
}

/** Each event's payload, by name. @publicApi */
export interface QueueEventPayloads {
  /** An attempt's handler returned; the action is `done`. */
  completed: ActionCompletedEvent;
  /** An attempt ended in error; `willRetry` says whether another follows. */
  failed: ActionFailedEvent;
  /** An operator retried a failed action. */
  retried: ActionRetriedEvent;
  /** The action is `cancelled`. */
  cancelled: ActionCancelledEvent;
  /** A group waits for an operator behind a failed action. */
  blocked: GroupBlockedEvent;
  /** An operator's retry or cancel released a blocked group. */
  unblocked: GroupUnblockedEvent;
}
