import type { LoggerService } from '@nestjs/common';
import { shutdownStep } from '../shutdown-steps';
import { armShutdownDeadline, EMBEDDED_STOP_ALLOWANCE_MS, shutdownDeadlineMs } from './shutdown-deadline';

function fakeLogger(): LoggerService & { errors: string[] } {
  const errors: string[] = [];
  return { errors, log: () => undefined, warn: () => undefined, error: (message: string) => errors.push(message) };
}

describe('shutdownDeadlineMs', () => {
  it('is SHUTDOWN_TIMEOUT_MS + LEASE_MS + the abort grace + 10 s of step bounds, 10 s more with the embedded PostgreSQL', () => {
    // Abort grace: a third of the lease, at most 2 s.
    expect(shutdownDeadlineMs({ SHUTDOWN_TIMEOUT_MS: 10_000, LEASE_MS: 30_000 }, false)).toBe(10_000 + 30_000 + 2_000 + 10_000);
    expect(shutdownDeadlineMs({ SHUTDOWN_TIMEOUT_MS: 1_000, LEASE_MS: 1_500 }, false)).toBe(1_000 + 1_500 + 500 + 10_000);
    expect(shutdownDeadlineMs({ SHUTDOWN_TIMEOUT_MS: 0, LEASE_MS: 1_500 }, true)).toBe(1_500 + 500 + 10_000 + EMBEDDED_STOP_ALLOWANCE_MS);
  });
});

describe('armShutdownDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('at the deadline, logs the steps still pending and exits 1', async () => {
    const logger = fakeLogger();
    const exit = jest.fn();
    armShutdownDeadline(5_000, logger, exit);
    void shutdownStep('HTTP server: requests in flight', new Promise(() => undefined), 60_000);
    await jest.advanceTimersByTimeAsync(4_999);
    expect(exit).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledWith(1);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toMatch(/^Shutdown did not end within 5000 ms .*still pending: HTTP server: requests in flight; exiting with code 1$/);
    await jest.advanceTimersByTimeAsync(60_000);
  });

  it('says so when no step of the queue is pending (a hook of another module), and does nothing once disarmed', async () => {
    const logger = fakeLogger();
    const exit = jest.fn();
    armShutdownDeadline(1_000, logger, exit);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(logger.errors[0]).toContain('still pending: no step of the queue (a hook of another module?)');

    const quiet = jest.fn();
    const disarm = armShutdownDeadline(1_000, fakeLogger(), quiet);
    disarm();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(quiet).not.toHaveBeenCalled();
  });
});
