/**
 * A batch size that fits the database's statement_timeout: it starts at
 * `max`, halves each time a statement of that size is cancelled by the
 * timeout (SQLSTATE 57014, see statement-timeout.ts), and doubles back
 * towards `max` after each statement that completes. With a DBA's
 * `statement_timeout = '50ms'` a job that would cancel its 1 000-row
 * statement forever instead settles on the size that fits.
 *
 * A timeout at `min` may be retried `retriesAtMin` times in a row: the first
 * statements of a new session also plan the statement and the triggers'
 * PL/pgSQL (15-24 ms for one retention row on this project's 2-core machine,
 * against 1-3 ms once cached), and a cancelled first run leaves part of that
 * cached, so the next run can fit a limit the first one could not. Those
 * retries wait first ({@link retryDelayMs}, doubling from `minRetryDelayMs`):
 * a stall that outlasts a few statements (a checkpoint's fsync, another
 * session's lock) is ridden out instead of ending the job within a few
 * hundred milliseconds of immediate retries.
 */
export class AdaptiveBatchSize {
  private current: number;
  private timeoutsAtMin = 0;
  private delayMs = 0;

  /**
   * @param max the size to use while statements complete (rows).
   * @param min the smallest size.
   * @param retriesAtMin how many timeouts in a row at `min` are retried (0: none).
   * @param minRetryDelayMs the wait before the first retry at `min` (ms); each
   *   further retry in a row waits twice as long (0: no wait).
   */
  constructor(
    readonly max: number,
    readonly min = 1,
    readonly retriesAtMin = 0,
    readonly minRetryDelayMs = 0,
  ) {
    this.current = max;
  }

  /** The size of the next statement (rows). */
  get size(): number {
    return this.current;
  }

  /**
   * How long to wait before the next statement (ms): 0, except after a
   * timeout at `min` that {@link timedOut} said to retry, where it doubles
   * with each timeout in a row from `minRetryDelayMs`.
   */
  get retryDelayMs(): number {
    return this.delayMs;
  }

  /** A statement of `size` completed: the next may be twice as large (up to `max`). */
  succeeded(): void {
    this.current = Math.min(this.max, this.current * 2);
    this.timeoutsAtMin = 0;
    this.delayMs = 0;
  }

  /**
   * A statement of `size` was cancelled by the timeout.
   * @returns whether to try again: at a smaller size, or at `min` while
   *   fewer than `retriesAtMin` timeouts in a row happened there.
   */
  timedOut(): boolean {
    if (this.current <= this.min) {
      this.delayMs = this.minRetryDelayMs * 2 ** this.timeoutsAtMin;
      return this.timeoutsAtMin++ < this.retriesAtMin;
    }
    this.current = Math.max(this.min, Math.floor(this.current / 2));
    return true;
  }
}
