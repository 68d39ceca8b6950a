import { heldUntilSurelyExpired, isDueForFencing, renewedDeadline } from './lease-deadline';
import { leaseTiming } from '../instance/lease-timing';

describe('lease deadlines', () => {
  it('renews a deadline to the send time of the beat plus a lease, never earlier than it was', () => {
    expect(renewedDeadline(1_000, 5_000, 30_000)).toBe(35_000);
    // The answer to an older beat (sent at 2 000) arrives after a newer renewal: the deadline stays.
    expect(renewedDeadline(35_000, 2_000, 30_000)).toBe(35_000);
  });

  it('fences a lease from fenceBeforeMs before its deadline on, and past it', () => {
    const { fenceBeforeMs } = leaseTiming(30_000);
    const deadline = 100_000;
    expect(isDueForFencing(deadline, deadline - fenceBeforeMs - 1, fenceBeforeMs)).toBe(false);
    expect(isDueForFencing(deadline, deadline - fenceBeforeMs, fenceBeforeMs)).toBe(true);
    expect(isDueForFencing(deadline, deadline + 1, fenceBeforeMs)).toBe(true);
  });

  it('counts a lease left to expire as held for a whole lease past its deadline', () => {
    expect(heldUntilSurelyExpired(40_000, 30_000)).toBe(70_000);
  });

  // The promise of docs/guarantees.md: a worker that cannot renew tells the handler to stop at
  // least LEASE_MS / 6 before the lease can expire elsewhere, whatever the phase of the fence check.
  it.each([100, 1_000, 30_000, 86_400_000])(
    'with LEASE_MS %i, the periodic fence check stops a handler at least guaranteedMarginMs (LEASE_MS / 6) before its deadline',
    (leaseMs) => {
      const timing = leaseTiming(leaseMs);
      expect(timing.guaranteedMarginMs).toBeGreaterThanOrEqual(Math.floor(leaseMs / 6));
      const sentAt = 0;
      const deadline = renewedDeadline(-Infinity, sentAt, leaseMs);
      const phases = [0, 1, Math.floor(timing.fenceCheckEveryMs / 2), timing.fenceCheckEveryMs - 1];
      for (const phase of phases) {
        // Checks run at phase, phase + every, ...: find the first that fences.
        let check = phase;
        while (!isDueForFencing(deadline, check, timing.fenceBeforeMs)) check += timing.fenceCheckEveryMs;
        expect(deadline - check).toBeGreaterThanOrEqual(timing.guaranteedMarginMs);
      }
    },
  );
});
