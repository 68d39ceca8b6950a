/**
 * The lease keeper's deadline arithmetic, pure so it is unit-tested without a
 * database (all values in ms on the monotonic clock, see monotonic-clock.ts).
 * The reasoning behind each bound is in lease-timing.ts.
 */

/**
 * The local deadline of a lease after a heartbeat sent at `sentAt` extended
 * it: the database computed the new expiry after `sentAt`, so `sentAt +
 * leaseMs` is safe. Never earlier than the deadline it had: an older beat's
 * answer arriving late must not shorten a newer renewal.
 */
export function renewedDeadline(deadline: number, sentAt: number, leaseMs: number): number {
  return Math.max(deadline, sentAt + leaseMs);
}

/** Whether a lease must be self-fenced at `now`: its deadline is `fenceBeforeMs` away or closer (or past). */
export function isDueForFencing(deadline: number, now: number, fenceBeforeMs: number): boolean {
  return now >= deadline - fenceBeforeMs;
}

/**
 * Until when a lease this worker left to expire still counts as held: its
 * deadline plus a whole lease, by which it has surely expired in the database
 * (LeaseKeeper.leaveToExpire).
 */
export function heldUntilSurelyExpired(deadline: number, leaseMs: number): number {
  return deadline + leaseMs;
}
