/**
 * How an attempt's handler is told to stop: the `AbortSignal` it receives,
 * aborted with a reason from abort-reasons.ts, plus one direct listener for
 * the runner. (One callback instead of an `addEventListener` per attempt: at
 * thousands of attempts per second the event-target bookkeeping showed up in
 * the profile.)
 */
export class HandlerStop {
  private readonly controller = new AbortController();
  private listener: ((reason: unknown) => void) | null = null;

  /** The signal handed to the handler (`ctx.signal`). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the handler was told to stop. */
  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Tells the handler to stop, with `reason` (the signal's reason); only the first call counts. */
  stop(reason: Error): void {
    if (this.controller.signal.aborted) return;
    this.controller.abort(reason);
    this.listener?.(reason);
  }

  /** Sets the one listener called by {@link stop} (the attempt runner's). */
  onStop(listener: (reason: unknown) => void): void {
    this.listener = listener;
  }
}
