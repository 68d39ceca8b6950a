import { pendingShutdownSteps, shutdownStep } from './shutdown-steps';

describe('shutdownStep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is pending while it waits, and says true when its work ends in time', async () => {
    let finish!: () => void;
    const step = shutdownStep('pool closing', new Promise<void>((resolve) => (finish = resolve)), 1_000);
    expect(pendingShutdownSteps()).toEqual(['pool closing']);
    finish();
    await expect(step).resolves.toBe(true);
    expect(pendingShutdownSteps()).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('gives up on work that never ends after its limit, and is no longer pending', async () => {
    const never = shutdownStep('reaper: round in flight', new Promise(() => undefined), 1_000);
    const other = shutdownStep('reaper: round in flight', new Promise(() => undefined), 5_000);
    expect(pendingShutdownSteps()).toEqual(['reaper: round in flight', 'reaper: round in flight']);
    await jest.advanceTimersByTimeAsync(999);
    expect(pendingShutdownSteps()).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    await expect(never).resolves.toBe(false);
    expect(pendingShutdownSteps()).toEqual(['reaper: round in flight']);
    await jest.advanceTimersByTimeAsync(4_000);
    await expect(other).resolves.toBe(false);
    expect(pendingShutdownSteps()).toEqual([]);
  });

  it('warns through the logger it is given when the time runs out, and only then', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    await expect(shutdownStep('pool closing', Promise.resolve(), 1_000, logger)).resolves.toBe(true);
    const late = shutdownStep('reaper: round in flight', new Promise(() => undefined), 1_000, logger);
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(late).resolves.toBe(false);
    expect(warnings).toEqual(['reaper: round in flight: not ended within 1000 ms of shutdown; leaving it']);
  });

  it('counts a rejection as the end of the step, without rethrowing it', async () => {
    await expect(shutdownStep('listen', Promise.reject(new Error('connection reset')), 1_000)).resolves.toBe(true);
    expect(pendingShutdownSteps()).toEqual([]);
  });
});
