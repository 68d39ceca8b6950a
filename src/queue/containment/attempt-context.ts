import { AsyncLocalStorage } from 'node:async_hooks';

/** The attempt a piece of handler code belongs to (see {@link attemptContext}). */
export interface AttemptContextStore {
  actionId: string;
  type: string;
  attempt: number;
  /** Ends the attempt as an error caused by `error`, if it has not ended yet; returns whether it had. */
  strayError(error: unknown): boolean;
}

/**
 * Carries the running attempt through everything its handler starts (timers,
 * promises it forgets to await), so an uncaught error can be charged to the
 * action that caused it (StrayErrorGuard). Node keeps the store for both
 * `uncaughtException` from a timer and `unhandledRejection` of a forgotten
 * promise (checked in containment tests).
 */
export const attemptContext = new AsyncLocalStorage<AttemptContextStore>();
