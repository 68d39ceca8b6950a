import { MetricsRegistry } from './metrics.registry';

/**
 * The event-loop lag series must read an idle loop's lag, not the histogram's
 * sampling interval: sampled every 100 ms, an idle instance read a minimum lag
 * of 0.1 s (found by a new user's /metrics).
 */
describe('MetricsRegistry', () => {
  it('reports an idle event loop with a minimum lag well under 50 ms', async () => {
    const { registry } = new MetricsRegistry();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const text = await registry.metrics();
    const lagMin = Number(/^nodejs_eventloop_lag_min_seconds (\S+)$/m.exec(text)?.[1]);
    expect(lagMin).toBeGreaterThan(0);
    expect(lagMin).toBeLessThan(0.05);
  });
});
