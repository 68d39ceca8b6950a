/** Longest delay setTimeout takes (about 24.8 days); a later due time is re-armed by the poll. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One timer for the earliest time something becomes claimable (a retry's
 * backoff, a scheduled `runAt`): arming it for a later time than the one set
 * does nothing; an earlier time replaces it. Calls `onDue` once when it fires.
 */
export class DueTimer {
  private armed: { timer: NodeJS.Timeout; at: number } | null = null;

  constructor(private readonly onDue: () => void) {}

  /** Fires `onDue` in `ms` (ms, from now) unless an earlier time is set already. */
  wakeIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.armed && this.armed.at <= at) return;
    this.cancel();
    const timer = setTimeout(
      () => {
        this.armed = null;
        this.onDue();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    timer.unref();
    this.armed = { timer, at };
  }

  cancel(): void {
    if (this.armed) clearTimeout(this.armed.timer);
    this.armed = null;
  }
}
