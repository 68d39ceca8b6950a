/**
 * Throw from a handler to fail the action at once, without further retries.
 * Its group then follows the action's `onFailure` policy.
 * @publicApi
 */
export class PermanentFailureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentFailureError';
  }
}
