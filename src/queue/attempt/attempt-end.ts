import type { AttemptOutcome } from '../../vocabulary';

/**
 * What happens to the action after an attempt:
 * - `done`: the handler returned; its result is stored.
 * - `retry`: it failed with attempts left; it runs again after `delayMs`.
 * - `failed`: it failed for good (permanent error, or its budget is spent).
 * - `cancelled`: cancellation was requested while it ran.
 * - `released`: handed back uncharged (shutdown, self-fencing, or the handler
 *   backed off: outcome `backed_off`); runs again after `delayMs`.
 */
export type AttemptEndKind = 'done' | 'retry' | 'failed' | 'cancelled' | 'released';

/** How one attempt ended, as the runner reports it and the finisher records it. */
export interface AttemptEnd {
  kind: AttemptEndKind;
  /** What the trace row says about this attempt (`error`, `timeout`, ...). */
  outcome: AttemptOutcome;
  /** The handler's result as JSON text (`done` only). */
  resultJson?: string;
  /** Readable message and stack (see thrown-value.ts). */
  error?: string;
  stack?: string | null;
  /** Delay before the next attempt (ms; `retry` and `released`). */
  delayMs?: number;
  /** A back-off for the whole type: pause the action's type this long (ms) before recording the release. */
  pauseTypeMs?: number;
}

/**
 * The one table from an attempt's end to what is written and counted: the
 * action's next status and how many attempts it charges to the budget. The
 * `outcome` label of `action_queue_attempts_ended_total` is the kind itself.
 */
export const ATTEMPT_END_EFFECTS: Record<AttemptEndKind, { nextStatus: string; charge: 0 | 1 }> = {
  done: { nextStatus: 'done', charge: 0 },
  retry: { nextStatus: 'pending', charge: 1 },
  failed: { nextStatus: 'failed', charge: 1 },
  cancelled: { nextStatus: 'cancelled', charge: 0 },
  released: { nextStatus: 'pending', charge: 0 },
};

/** One attempt to record: which action, which attempt (fencing token), and how it ended. */
export interface AttemptToFinish {
  actionId: string;
  attempt: number;
  end: AttemptEnd;
  /** The id of the first action of the chunk it ran in; absent for an action run alone. */
  chunkOf?: string;
}
