/**
 * `ctx.transaction` found that this attempt no longer owns its action (its
 * lease expired and was reaped or taken over, a cancel was requested, or the
 * attempt already ended): the transaction was rolled back, so none of the
 * callback's writes became visible. Another attempt (or nobody, after a
 * cancel) owns the action now; its outcome stands.
 * @publicApi
 */
export class ActionFencedError extends Error {
  /**
   * @param actionId the action (decimal string).
   * @param attempt this attempt's number (its fencing token).
   * @param why what the fence found, in words.
   */
  /** The action (decimal string). */
  readonly actionId: string;
  /** The attempt that may no longer complete (its fencing token). */
  readonly attempt: number;

  constructor(actionId: string, attempt: number, why: string) {
    super(`action ${actionId} attempt ${attempt} may no longer complete: ${why}; its transaction was rolled back`);
    this.name = 'ActionFencedError';
    this.actionId = actionId;
    this.attempt = attempt;
  }
}
