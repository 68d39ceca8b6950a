/**
 * Options of a handler, given to {@link ActionHandler}.
 *
 * Backoff after a failed attempt n (1-based) is "full jitter" exponential:
 * a uniform random delay in [0, min(backoffCapMs, backoffBaseMs * 2^(n-1))]
 * (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
 */
export interface ActionHandlerOptions {
  /** The action type this handler runs, e.g. `instance.create`. Stored in the database as is. */
  type: string;
  /** Abort the attempt after this many ms (the signal aborts, the attempt fails with a timeout). Default: none. */
  timeoutMs?: number;
  /** Backoff base (ms). Default 1 000. */
  backoffBaseMs?: number;
  /** Backoff cap (ms). Default 60 000. */
  backoffCapMs?: number;
  /** Caps an action's maxAttempts for this type, if lower. Default: no cap. */
  maxAttempts?: number;
}

/** Defaults of {@link ActionHandlerOptions}. */
export const HANDLER_DEFAULTS = { backoffBaseMs: 1_000, backoffCapMs: 60_000 } as const;
