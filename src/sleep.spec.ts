import { sleep } from './sleep';

describe('sleep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves once its time has passed, not before', async () => {
    let done = false;
    const slept = sleep(100).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await slept;
    expect(done).toBe(true);
  });

  it('rejects with the reason as soon as its signal aborts, and leaves no timer behind', async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(slept).rejects.toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects at once when its signal has already aborted', async () => {
    const reason = new Error('gone');
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('removes its abort listener when it resolves', async () => {
    const controller = new AbortController();
    const removed = jest.spyOn(controller.signal, 'removeEventListener');
    const slept = sleep(10, controller.signal);
    await jest.advanceTimersByTimeAsync(10);
    await slept;
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});
