import { heldUntilSurelyExpired } from './lease-deadline';
import { leaseTiming } from '../instance/lease-timing';
import { refusalGraceMs, unknownLeaseCutoffMs } from './reaper-timing';

describe('reaper timing', () => {
  it.each([100, 30_000, 86_400_000])(
    'with LEASE_MS %i, the refusal grace outlasts the time a live owner counts an expired lease as held, plus a reaper round',
    (leaseMs) => {
      const reaperIntervalMs = 5_000;
      const deadline = 0;
      // The owner releases the lease uncharged only once it no longer counts it as held, in a reaper round after that.
      const ownerReleasesBy = heldUntilSurelyExpired(deadline, leaseMs) + reaperIntervalMs;
      expect(refusalGraceMs(leaseMs, reaperIntervalMs)).toBeGreaterThan(ownerReleasesBy - deadline);
    },
  );

  it('is 65 s with the defaults (LEASE_MS 30 s, REAPER_INTERVAL_MS 5 s)', () => {
    expect(refusalGraceMs(30_000, 5_000)).toBe(65_000);
  });

  it.each([100, 1_000, 30_000, 86_400_000])(
    'with LEASE_MS %i, the unknown-lease cutoff lies past the statement timeout of every claim and finish',
    (leaseMs) => {
      const timing = leaseTiming(leaseMs);
      expect(unknownLeaseCutoffMs(timing)).toBeGreaterThan(timing.statementTimeoutMs);
      expect(unknownLeaseCutoffMs(timing)).toBe(timing.statementTimeoutMs + Math.floor(leaseMs / 3));
    },
  );
});
