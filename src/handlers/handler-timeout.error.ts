/**
 * The reason an attempt's signal aborts when the handler's `timeoutMs` passes
 * (`ctx.signal.reason`); the attempt ends as a `timeout` and is retried while
 * attempts remain.
 * @publicApi
 */
export class HandlerTimeoutError extends Error {
  /** @param timeoutMs the handler's `timeoutMs` that passed (ms). */
  constructor(
    /** The handler's `timeoutMs` that passed (ms). */
    readonly timeoutMs: number,
  ) {
    super(`handler timed out after ${timeoutMs} ms`);
    this.name = 'HandlerTimeoutError';
  }
}
