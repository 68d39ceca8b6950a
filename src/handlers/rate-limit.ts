/**
 * A rate limit of an action type: a token bucket shared by every instance
 * (src/database/sql/031-rate-limits.up.sql, docs/flow-control.md). At most
 * `burst` actions start at once after a quiet spell, and over time at most
 * `perSecond` a second.
 * @publicApi
 */
export interface RateLimit {
  /** Starts per second, 0.001 to 100 000 (fractions allowed: 0.5 is one every 2 s). */
  perSecond: number;
  /** Starts allowed at once after a quiet spell, 1 to 100 000. Default 1. */
  burst?: number;
}

/** Smallest rate a limit may set (per second): about one start every 17 minutes; the CHECK of action_rate_limits. */
export const MIN_RATE_PER_SECOND = 0.001;
/** Largest rate and burst a limit may set; beyond it a limit is a mistake (the claim is never that fast). */
export const MAX_RATE_PER_SECOND = 100_000;

/** Why `limit` is not a valid {@link RateLimit}, naming the field under `field` (e.g. `rateLimit`), or null. */
export function rateLimitProblem(limit: unknown, field: string): string | null {
  if (typeof limit !== 'object' || limit === null) return `${field} must be an object { perSecond, burst? }`;
  const { perSecond, burst } = limit as { perSecond?: unknown; burst?: unknown };
  if (typeof perSecond !== 'number' || !Number.isFinite(perSecond) || perSecond < MIN_RATE_PER_SECOND || perSecond > MAX_RATE_PER_SECOND) {
    return `${field}.perSecond must be a number from ${MIN_RATE_PER_SECOND} to ${MAX_RATE_PER_SECOND}, not ${String(perSecond)}`;
  }
  if (burst !== undefined && (!Number.isInteger(burst) || (burst as number) < 1 || (burst as number) > MAX_RATE_PER_SECOND)) {
    return `${field}.burst must be an integer from 1 to ${MAX_RATE_PER_SECOND}, not ${String(burst)}`;
  }
  return null;
}
