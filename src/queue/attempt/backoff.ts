/**
 * Delay before retry number `attempt` (1-based: the attempt that just failed),
 * "full jitter": uniform in [0, min(capMs, baseMs * 2^(attempt-1))] ms.
 * Source: Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture
 * Blog, 2015 — full jitter spreads retries best for the least total work.
 *
 * @param attempt the attempt that failed, >= 1.
 * @param baseMs first ceiling in ms.
 * @param capMs largest ceiling in ms.
 * @param random source of [0, 1) numbers (tests pass a fixed one).
 * @returns whole milliseconds.
 */
export function fullJitterBackoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(capMs, baseMs * 2 ** exponent);
  return Math.floor(random() * ceiling);
}
