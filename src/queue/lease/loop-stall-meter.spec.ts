import { LoopStallMeter } from './loop-stall-meter';

describe('LoopStallMeter', () => {
  let clock = 0;
  const now = (): number => clock;

  beforeEach(() => {
    clock = 1_000;
  });

  it('reads no stall while its ticks come on time (within the noise)', () => {
    const meter = new LoopStallMeter(50, 10_000, now);
    for (let i = 0; i < 20; i++) {
      clock += 55;
      meter.tick();
    }
    expect(meter.stalledMsSince(0)).toBe(0);
  });

  it('sums the delays of late ticks after a given time, a stall across it counted for its part after it', () => {
    const meter = new LoopStallMeter(50, 10_000, now);
    clock += 50 + 400; // a stall of 400 ms, ended at 1 450
    meter.tick();
    clock += 50;
    meter.tick();
    clock += 50 + 1_000; // a stall of 1 000 ms, ended at 2 550
    meter.tick();
    expect(meter.stalledMsSince(0)).toBe(1_400);
    expect(meter.stalledMsSince(1_450)).toBe(1_000);
    // Since 2 050: only the last 500 ms of the second stall.
    expect(meter.stalledMsSince(2_050)).toBe(500);
    expect(meter.stalledMsSince(2_550)).toBe(0);
  });

  it('counts the stall in progress, whose tick has not run yet', () => {
    const meter = new LoopStallMeter(50, 10_000, now);
    clock += 50;
    meter.tick();
    clock += 50 + 2_000; // the tick due at 1 100 has not run at 3 100
    expect(meter.stalledMsSince(0)).toBe(2_000);
    expect(meter.stalledMsSince(2_100)).toBe(1_000);
  });

  it('forgets stalls that ended more than keepMs ago', () => {
    const meter = new LoopStallMeter(50, 1_000, now);
    clock += 50 + 300;
    meter.tick();
    for (let i = 0; i < 30; i++) {
      clock += 50;
      meter.tick();
    }
    expect(meter.stalledMsSince(0)).toBe(0);
  });

  it('measures a real blocked loop with its own timer', async () => {
    const meter = new LoopStallMeter(10, 10_000);
    meter.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const blockUntil = Date.now() + 300;
      while (Date.now() < blockUntil) {
        // blocks the event loop
      }
      expect(meter.stalledMsSince(0)).toBeGreaterThanOrEqual(250);
    } finally {
      meter.stop();
    }
  });
});
