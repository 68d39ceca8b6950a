import { AdaptiveBatchSize } from './adaptive-batch-size';

describe('AdaptiveBatchSize', () => {
  it('halves on each timeout down to the minimum, then says there is nothing left to try', () => {
    const batch = new AdaptiveBatchSize(1000, 100);
    expect(batch.size).toBe(1000);
    expect(batch.timedOut()).toBe(true);
    expect(batch.size).toBe(500);
    expect(batch.timedOut()).toBe(true);
    expect(batch.timedOut()).toBe(true);
    expect(batch.size).toBe(125);
    expect(batch.timedOut()).toBe(true);
    expect(batch.size).toBe(100);
    expect(batch.timedOut()).toBe(false);
    expect(batch.size).toBe(100);
  });

  it('grows back towards the maximum after statements that complete', () => {
    const batch = new AdaptiveBatchSize(1000);
    batch.timedOut();
    batch.timedOut();
    expect(batch.size).toBe(250);
    batch.succeeded();
    expect(batch.size).toBe(500);
    batch.succeeded();
    batch.succeeded();
    expect(batch.size).toBe(1000);
  });

  it('retries a timeout at the minimum as often as asked, counting only timeouts in a row', () => {
    const batch = new AdaptiveBatchSize(2, 1, 2);
    expect(batch.timedOut()).toBe(true); // 2 -> 1
    expect(batch.timedOut()).toBe(true); // at 1: retry 1
    expect(batch.timedOut()).toBe(true); // retry 2
    expect(batch.timedOut()).toBe(false);
    batch.succeeded(); // 1 -> 2, and the count starts again
    expect(batch.timedOut()).toBe(true);
    expect(batch.timedOut()).toBe(true);
    expect(batch.timedOut()).toBe(true);
    expect(batch.timedOut()).toBe(false);
  });

  it('waits before each retry at the minimum, twice as long each time, and not at all after a success', () => {
    const batch = new AdaptiveBatchSize(2, 1, 3, 50);
    expect(batch.timedOut()).toBe(true); // 2 -> 1: no wait, a smaller statement
    expect(batch.retryDelayMs).toBe(0);
    expect(batch.timedOut()).toBe(true);
    expect(batch.retryDelayMs).toBe(50);
    expect(batch.timedOut()).toBe(true);
    expect(batch.retryDelayMs).toBe(100);
    expect(batch.timedOut()).toBe(true);
    expect(batch.retryDelayMs).toBe(200);
    batch.succeeded();
    expect(batch.retryDelayMs).toBe(0);
    expect(batch.timedOut()).toBe(true);
    expect(batch.retryDelayMs).toBe(0);
    expect(batch.timedOut()).toBe(true);
    expect(batch.retryDelayMs).toBe(50);
  });
});
