/** The reason an attempt's signal aborts when the handler's `timeoutMs` passes. */
export class HandlerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`handler timed out after ${timeoutMs} ms`);
    this.name = 'HandlerTimeoutError';
  }
}
