import { stuckSlotsLimit } from './worker.health';

describe('stuckSlotsLimit', () => {
  it.each([
    [16, 25, 4],
    [10, 25, 3],
    [1, 25, 1],
    [2, 1, 1],
    [16, 100, 16],
  ])('with %i slots and STUCK_SLOTS_MAX_PERCENT=%i, reports lost capacity from %i stuck slots', (slots, percent, limit) => {
    expect(stuckSlotsLimit({ WORKER_CONCURRENCY: slots, STUCK_SLOTS_MAX_PERCENT: percent })).toBe(limit);
  });
});
