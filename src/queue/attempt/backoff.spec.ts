import { fullJitterBackoffMs } from './backoff';

describe('full-jitter exponential backoff', () => {
  it('doubles the ceiling per attempt up to the cap', () => {
    const top = () => 0.999999;
    expect(fullJitterBackoffMs(1, 100, 10_000, top)).toBe(99);
    expect(fullJitterBackoffMs(2, 100, 10_000, top)).toBe(199);
    expect(fullJitterBackoffMs(4, 100, 10_000, top)).toBe(799);
    expect(fullJitterBackoffMs(30, 100, 10_000, top)).toBe(9_999);
  });

  it('spreads delays uniformly from zero', () => {
    expect(fullJitterBackoffMs(5, 100, 10_000, () => 0)).toBe(0);
    const samples = Array.from({ length: 2_000 }, () => fullJitterBackoffMs(3, 100, 10_000));
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThan(400);
    expect(mean).toBeGreaterThan(170);
    expect(mean).toBeLessThan(230);
  });
});
