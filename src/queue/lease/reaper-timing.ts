import { LeaseTiming } from '../instance/lease-timing';

/**
 * The reaper's two derived waits (ms), pure so they are unit-tested; the
 * argument for each is beside it.
 */

/**
 * The grace that leases expired while the database refused writes get, at the
 * first reaper round that gets through: 2 x LEASE_MS + REAPER_INTERVAL_MS.
 * Their owners could not renew them for the database's sake, not the
 * action's. A live owner counts such a lease as held until at most LEASE_MS
 * after its local deadline (heldUntilSurelyExpired, lease-deadline.ts); the
 * database's expiry lies after that deadline (it is computed when the renewal
 * runs, after it was sent), for which the second LEASE_MS is the margin; and
 * the owner's next reaper round, within REAPER_INTERVAL_MS, releases the lease
 * uncharged as unknown. So a live owner's lease is not reaped as a loss, and
 * a dead owner's lease is reaped a grace later.
 */
export function refusalGraceMs(leaseMs: number, reaperIntervalMs: number): number {
  return 2 * leaseMs + reaperIntervalMs;
}

/**
 * How far before the database's now the unknown-lease cutoff lies: a lease
 * of this worker granted before it was granted by a statement whose answer
 * has been handled or given up by then (012-unknown-leases.up.sql). Every
 * claim and finishing statement gives up after `statementTimeoutMs`; LEASE_MS/3
 * more covers a timer that fires late (one heartbeat period).
 */
export function unknownLeaseCutoffMs(timing: LeaseTiming): number {
  return timing.statementTimeoutMs + Math.floor(timing.leaseMs / 3);
}
