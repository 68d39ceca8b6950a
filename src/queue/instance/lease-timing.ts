/**
 * The worker's timing, derived from LEASE_MS (all in ms). A lease granted by
 * a statement sent at local time `s` cannot expire anywhere before `s + leaseMs`
 * (the database computes the expiry from its own clock when it runs the
 * statement, which is after `s`), so each held attempt keeps a local deadline
 * of `sentAt + leaseMs` on the monotonic clock, renewed by every successful
 * heartbeat.
 *
 * - Heartbeat every `leaseMs / 3`: one lost beat is tolerated.
 * - Every heartbeat, claim and finishing statement gives up after
 *   `statementTimeoutMs` (client side), shorter than a third of the lease, so a
 *   hung connection cannot keep the worker waiting past its leases.
 * - Self-fencing: once `fenceBeforeMs` or less remain before a deadline, the
 *   attempt's signal is aborted and the worker stops taking work. The check
 *   runs every `fenceCheckEveryMs`, so a handler that honours its signal is
 *   told to stop at least `guaranteedMarginMs` (leaseMs / 6) before its lease
 *   can expire elsewhere (docs/guarantees.md, "Guarantees and failure modes").
 */
export interface LeaseTiming {
  leaseMs: number;
  heartbeatEveryMs: number;
  statementTimeoutMs: number;
  fenceBeforeMs: number;
  fenceCheckEveryMs: number;
  guaranteedMarginMs: number;
}

/**
 * @param leaseMs the LEASE_MS setting (>= 100).
 * @returns the derived timing; see {@link LeaseTiming}.
 */
export function leaseTiming(leaseMs: number): LeaseTiming {
  const fenceBeforeMs = Math.floor(leaseMs / 4);
  const fenceCheckEveryMs = Math.max(5, Math.floor(leaseMs / 12));
  return {
    leaseMs,
    heartbeatEveryMs: Math.max(30, Math.floor(leaseMs / 3)),
    // At least 250 ms where the lease allows it, so a busy database is not
    // mistaken for an unreachable one; always under a third of the lease.
    statementTimeoutMs: Math.min(Math.floor(leaseMs / 3) - 1, Math.max(Math.floor(leaseMs / 6), 250)),
    fenceBeforeMs,
    fenceCheckEveryMs,
    guaranteedMarginMs: fenceBeforeMs - fenceCheckEveryMs,
  };
}
