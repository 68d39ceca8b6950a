import { fitToBudget } from './response-budget';

describe('fitToBudget', () => {
  it('keeps every item whose content fits', () => {
    expect(fitToBudget([10, 20, 30], 100)).toEqual({ count: 3, omitted: [false, false, false] });
  });

  it('lists an item that can never fit without its content, and goes on with the next ones', () => {
    expect(fitToBudget([10, 500, 20, 600], 100)).toEqual({ count: 4, omitted: [false, true, false, true] });
    expect(fitToBudget([500, 500], 100)).toEqual({ count: 2, omitted: [true, true] });
  });

  it('ends a paged view before an item that would fit an empty page, so it is sent whole next', () => {
    expect(fitToBudget([60, 60, 10], 100)).toEqual({ count: 1, omitted: [false] });
  });

  it('omits instead of cutting when the view has no cursor', () => {
    expect(fitToBudget([60, 60, 10], 100, false)).toEqual({ count: 3, omitted: [false, true, false] });
  });

  it('never answers an empty page for a non-empty one', () => {
    expect(fitToBudget([101], 100).count).toBe(1);
    expect(fitToBudget([], 100)).toEqual({ count: 0, omitted: [] });
  });
});
