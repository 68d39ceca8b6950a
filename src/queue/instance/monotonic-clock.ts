/**
 * Milliseconds on the process-wide monotonic clock (CLOCK_MONOTONIC through
 * `process.hrtime`). Unlike `Date.now()` it never jumps with the wall clock,
 * and unlike `performance.now()` it reads the same in every worker thread, so
 * the event-loop watchdog (its own thread) compares the lease deadlines that
 * the main thread writes.
 */
export function monotonicNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
