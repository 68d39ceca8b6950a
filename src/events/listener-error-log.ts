/** Shortest time between two error lines of one listener (ms). */
export const LISTENER_ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * Logs a listener's errors without flooding the log: the first at once, then at
 * most one line per {@link LISTENER_ERROR_LOG_INTERVAL_MS}, which says how many
 * were left out since the last. A listener that throws on every `completed`
 * would otherwise write one line per finished action, thousands a second.
 */
export class ListenerErrorLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private skipped = 0;

  /**
   * @param write writes one error line: its text and the error's stack, if any.
   * @param now the clock (ms), monotonic.
   */
  constructor(
    private readonly write: (message: string, stack: string | undefined) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Reports one error of the listener.
   * @param what names the listener and its event, e.g. `Listener Audit.onDone of queue event "completed"`.
   * @param error what it threw or rejected with.
   */
  report(what: string, error: unknown): void {
    const at = this.now();
    if (at - this.lastAt < LISTENER_ERROR_LOG_INTERVAL_MS) {
      this.skipped++;
      return;
    }
    const more = this.skipped > 0 ? ` (and ${this.skipped} more errors of it since the last line)` : '';
    this.lastAt = at;
    this.skipped = 0;
    const message = error instanceof Error ? error.message : String(error);
    this.write(`${what} failed: ${message}${more}`, error instanceof Error ? error.stack : undefined);
  }
}
