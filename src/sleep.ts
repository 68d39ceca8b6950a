/**
 * Waits `ms` milliseconds. With a `signal`, stops at once when it aborts and
 * rejects with the signal's reason (also when it has already aborted): the
 * sleep of a well-behaved handler. The one sleep of the repository's tests,
 * fixtures, benchmark and demo; a test waits for a condition with `waitFor`
 * instead, and sleeps only where time itself is the point.
 *
 * @param ms how long (ms).
 * @param signal optional; aborting it ends the wait early with a rejection.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
