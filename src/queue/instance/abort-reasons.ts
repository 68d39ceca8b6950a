/**
 * Why an attempt's `AbortSignal` fired (its `reason`). The runner maps each to
 * how the attempt ends (attempt-end.ts); handlers may read `ctx.signal.reason`.
 */

/** The heartbeat found the lease gone: another attempt owns the action now. Nothing is recorded. */
export class LeaseLostError extends Error {
  constructor(actionId: string, attempt: number) {
    super(`lease of action ${actionId} attempt ${attempt} was lost`);
    this.name = 'LeaseLostError';
  }
}

/**
 * The worker could not renew the lease (database unreachable or too slow, or
 * its own event loop stalled) and stops the handler before the lease can
 * expire elsewhere (self-fencing). The action is released if the database can
 * still be reached, unless the loop's stall explains the failed renewals
 * (`loopStalledMs` set): then the attempt is left to expire, a loss with its
 * instance (poison detection, docs/guarantees.md).
 */
export class LeaseExpiringError extends Error {
  /** How long the event loop stalled since the lease was last renewed (ms), when that explains the failed renewals; else null. */
  declare readonly loopStalledMs: number | null;

  /**
   * @param remainingMs time left before the lease may expire elsewhere (ms).
   * @param loopStalledMs see {@link loopStalledMs}.
   */
  constructor(actionId: string, attempt: number, remainingMs: number, loopStalledMs: number | null = null) {
    super(
      `lease of action ${actionId} attempt ${attempt} could not be renewed` +
        (loopStalledMs === null ? '' : ` (the instance's event loop stalled for ${Math.round(loopStalledMs)} ms)`) +
        `; ${Math.max(0, Math.round(remainingMs))} ms left: stopping before it expires`,
    );
    this.name = 'LeaseExpiringError';
    // Not enumerable: the trace's message (thrown-value.ts) lists an error's own enumerable fields.
    Object.defineProperty(this, 'loopStalledMs', { value: loopStalledMs, enumerable: false });
  }
}

/** The service is shutting down; the action is released (not charged). */
export class ShutdownError extends Error {
  constructor() {
    super('service shutting down; action released');
    this.name = 'ShutdownError';
  }
}

/** An operator asked to cancel the running action (POST /actions/:id/cancel). */
export class CancelRequestedError extends Error {
  constructor(readonly actionId: string) {
    super(`cancellation of action ${actionId} was requested`);
    this.name = 'CancelRequestedError';
  }
}

/**
 * The handler left an error behind that nothing caught (an unhandled
 * rejection or an uncaught exception in a timer it started): the attempt ends
 * as an error, charged to this action only.
 */
export class StrayHandlerError extends Error {
  constructor(readonly detail: string) {
    super(`the handler left an uncaught error: ${detail}`);
    this.name = 'StrayHandlerError';
  }
}

/**
 * A quarantined action was leased to run alone, but another handler of this
 * worker did not return (it is stuck): the action is released, uncharged and
 * still quarantined, for an instance that is idle.
 */
export class NotAloneError extends Error {
  constructor(actionId: string) {
    super(`quarantined action ${actionId} could not run alone here (a stuck handler holds a slot); released`);
    this.name = 'NotAloneError';
  }
}
