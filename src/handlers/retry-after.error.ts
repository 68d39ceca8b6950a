/**
 * Longest back-off a handler may ask for (ms): one day. A longer wait is
 * almost certainly a unit mistake (seconds passed as ms, or a date), and an
 * operator pause (docs/flow-control.md) is the tool for an open-ended stop.
 */
export const MAX_BACK_OFF_MS = 24 * 60 * 60 * 1000;

/**
 * Options of a back-off.
 * @publicApi
 */
export interface BackOffOptions {
  /**
   * Also hold every other action of this type for the same time (a timed
   * type pause, seen by every instance): for a downstream that rate-limits
   * the whole API (an HTTP 429 for every caller), not just this group.
   * Default false: only this action's group waits.
   */
  wholeType?: boolean;
}

/**
 * Throw from a handler (or call `ctx.backOff`, which throws it) when a
 * downstream said "try again later" (HTTP 429 or 503 with Retry-After): the
 * attempt ends as an uncharged release (trace outcome `backed_off`), the
 * action stays its group's head and runs again after `retryAfterMs`, and the
 * rest of its group waits behind it (G3). With `wholeType` the whole action
 * type waits as well.
 * @example
 * if (response.status === 429) throw new RetryAfterError(Number(response.headers.get('retry-after')) * 1000, { wholeType: true });
 * @throws TypeError when `retryAfterMs` is not a finite number of 0..{@link MAX_BACK_OFF_MS} ms
 *   (the attempt then fails as an ordinary, charged error).
 * @publicApi
 */
export class RetryAfterError extends Error {
  /** How long the action (and with `wholeType`, its type) waits, in ms (rounded up to an integer). */
  readonly retryAfterMs: number;
  /** Whether every action of the type waits too. */
  readonly wholeType: boolean;

  constructor(retryAfterMs: number, options: BackOffOptions & { message?: string } = {}) {
    if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs) || retryAfterMs < 0 || retryAfterMs > MAX_BACK_OFF_MS) {
      throw new TypeError(`RetryAfterError: retryAfterMs must be a number of 0..${MAX_BACK_OFF_MS} ms, got ${String(retryAfterMs)}`);
    }
    const ms = Math.ceil(retryAfterMs);
    const wholeType = options.wholeType === true;
    super(options.message ?? `backed off for ${ms} ms${wholeType ? ' (whole type)' : ''}`);
    this.name = 'RetryAfterError';
    this.retryAfterMs = ms;
    this.wholeType = wholeType;
  }
}

/** A back-off a handler asked for: how long, and whether for its whole type. */
export interface BackOffRequest {
  ms: number;
  wholeType: boolean;
}

/**
 * The back-off `error` asks for, or null when it is no RetryAfterError. Also
 * recognises one from another copy of this package (by name and fields), as
 * `isPermanentFailure` does; never throws, whatever was thrown.
 */
export function backOffRequested(error: unknown): BackOffRequest | null {
  try {
    if (error instanceof RetryAfterError) return { ms: error.retryAfterMs, wholeType: error.wholeType };
    if (typeof error !== 'object' || error === null) return null;
    const candidate = error as { name?: unknown; retryAfterMs?: unknown; wholeType?: unknown };
    if (candidate.name !== 'RetryAfterError' || typeof candidate.retryAfterMs !== 'number') return null;
    const ms = candidate.retryAfterMs;
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_BACK_OFF_MS) return null;
    return { ms: Math.ceil(ms), wholeType: candidate.wholeType === true };
  } catch {
    return null; // a Proxy's traps may throw
  }
}

/** The `ctx.backOff` every handler context gets: throws the RetryAfterError that ends the attempt. */
export function throwBackOff(ms: number, options?: BackOffOptions): never {
  throw new RetryAfterError(ms, options);
}
