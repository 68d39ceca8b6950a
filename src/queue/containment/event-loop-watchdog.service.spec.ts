import { leaseTiming } from '../instance/lease-timing';
import { watchdogTickEveryMs } from './event-loop-watchdog.service';

/** The thread's stall threshold, as EventLoopWatchdog computes it. */
const stallMs = (fenceCheckEveryMs: number) => Math.max(3 * watchdogTickEveryMs(fenceCheckEveryMs), fenceCheckEveryMs);
/** The tick before it was lengthened for idle instances. */
const formerTickMs = (fenceCheckEveryMs: number) => Math.min(100, fenceCheckEveryMs);

describe('event-loop watchdog tick', () => {
  it.each([100, 1_000, 3_000, 7_200, 30_000, 120_000, 86_400_000])(
    'with LEASE_MS %i, a stall is called at the same age as with the former tick, and the tick is never more frequent',
    (leaseMs) => {
      const { fenceCheckEveryMs } = leaseTiming(leaseMs);
      const tick = watchdogTickEveryMs(fenceCheckEveryMs);
      expect(stallMs(fenceCheckEveryMs)).toBe(Math.max(3 * formerTickMs(fenceCheckEveryMs), fenceCheckEveryMs));
      expect(tick).toBeGreaterThanOrEqual(formerTickMs(fenceCheckEveryMs));
      // A healthy loop's tick is at most a third of the threshold old (plus timer lateness).
      expect(3 * tick).toBeLessThanOrEqual(stallMs(fenceCheckEveryMs));
    },
  );

  it('ticks every 500 ms with the default LEASE_MS (30 s), stall threshold 2 500 ms', () => {
    const { fenceCheckEveryMs } = leaseTiming(30_000);
    expect(watchdogTickEveryMs(fenceCheckEveryMs)).toBe(500);
    expect(stallMs(fenceCheckEveryMs)).toBe(2_500);
  });
});
