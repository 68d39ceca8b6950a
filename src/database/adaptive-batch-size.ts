/**
 * A batch size that fits the database's statement_timeout: it starts at
 * `max`, halves each time a statement of that size is cancelled by the
 * timeout (SQLSTATE 57014, see statement-timeout.ts), and doubles back
 * towards `max` after each statement that completes. With a DBA's
 * `statement_timeout = '50ms'` a job that would cancel its 1 000-row
 * statement forever instead settles on the size that fits.
 */
export class AdaptiveBatchSize {
  private current: number;

  /**
   * @param max the size to use while statements complete (rows).
   * @param min the smallest size; a timeout at it is not retried.
   */
  constructor(
    readonly max: number,
    readonly min = 1,
  ) {
    this.current = max;
  }

  /** The size of the next statement (rows). */
  get size(): number {
    return this.current;
  }

  /** A statement of `size` completed: the next may be twice as large (up to `max`). */
  succeeded(): void {
    this.current = Math.min(this.max, this.current * 2);
  }

  /**
   * A statement of `size` was cancelled by the timeout.
   * @returns whether a smaller size is left to try (false: it was already `min`).
   */
  timedOut(): boolean {
    if (this.current <= this.min) return false;
    this.current = Math.max(this.min, Math.floor(this.current / 2));
    return true;
  }
}
