import { SchedulerRegistry } from '@nestjs/schedule';
import type { Pool } from 'pg';
import { QueueSettings } from '../config/settings';
import { ActionHandlersRegistry } from '../handlers/action-handlers.registry';
import { SCHEDULE_POLL_INTERVAL_MS } from './schedule-defaults';
import { SCHEDULE_TICKER_POLL, SCHEDULE_TICKER_WAKE, ScheduleTicker } from './schedule-ticker.service';

/** A round the test ends when it wants, with the ms until the next one. */
interface HeldRound {
  end: (nextMs: number) => void;
}

describe('ScheduleTicker timing (@nestjs/schedule)', () => {
  let scheduler: SchedulerRegistry;
  let rounds: HeldRound[];

  const ticker = (workerEnabled = true) => {
    const settings = { WORKER_ENABLED: workerEnabled, DEFAULT_MAX_ATTEMPTS: 5 } as QueueSettings;
    // No handler declares a schedule: start-up writes nothing, so the pool is never used.
    const t = new ScheduleTicker({} as Pool, settings, new ActionHandlersRegistry(), scheduler);
    jest.spyOn(t, 'round').mockImplementation(
      () =>
        new Promise<number>((resolve) => {
          rounds.push({ end: resolve });
        }),
    );
    return t;
  };
  /** Lets the promise callbacks of an ended round run. */
  const settle = () => jest.advanceTimersByTimeAsync(0);

  beforeEach(() => {
    jest.useFakeTimers();
    scheduler = new SchedulerRegistry();
    rounds = [];
  });
  afterEach(() => jest.useRealTimers());

  it('registers its poll in the SchedulerRegistry on a worker instance and starts a round at once', async () => {
    await ticker().onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([SCHEDULE_TICKER_POLL]);
    expect(rounds).toHaveLength(1);
  });

  it('keeps a registry of its own when the app has none', async () => {
    const t = new ScheduleTicker({} as Pool, { WORKER_ENABLED: true } as QueueSettings, new ActionHandlersRegistry());
    const round = jest.spyOn(t, 'round').mockResolvedValue(SCHEDULE_POLL_INTERVAL_MS);
    await t.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2 * SCHEDULE_POLL_INTERVAL_MS);
    expect(round).toHaveBeenCalledTimes(3);
    await t.beforeApplicationShutdown();
    await jest.advanceTimersByTimeAsync(2 * SCHEDULE_POLL_INTERVAL_MS);
    expect(round).toHaveBeenCalledTimes(3);
  });

  it('registers nothing on an instance without the worker', async () => {
    await ticker(false).onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([]);
    expect(rounds).toHaveLength(0);
  });

  it('skips a poll that fires while a round runs, so rounds never overlap', async () => {
    await ticker().onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(3 * SCHEDULE_POLL_INTERVAL_MS);
    expect(rounds).toHaveLength(1);
    rounds[0].end(SCHEDULE_POLL_INTERVAL_MS);
    await settle();
    await jest.advanceTimersByTimeAsync(SCHEDULE_POLL_INTERVAL_MS);
    expect(rounds).toHaveLength(2);
  });

  it('wakes for a tick nearer than the poll with a one-shot timeout in the registry', async () => {
    await ticker().onApplicationBootstrap();
    rounds[0].end(120);
    await settle();
    expect(scheduler.getTimeouts()).toEqual([SCHEDULE_TICKER_WAKE]);
    await jest.advanceTimersByTimeAsync(119);
    expect(rounds).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(rounds).toHaveLength(2);
    // The wake-up started that round: it is gone from the registry (a poll during the round would skip anyway).
    expect(scheduler.getTimeouts()).toEqual([]);
  });

  it('removes its entries at shutdown and waits for the round in flight', async () => {
    const t = ticker();
    await t.onApplicationBootstrap();
    let stopped = false;
    const stopping = t.beforeApplicationShutdown().then(() => (stopped = true));
    await settle();
    expect(scheduler.getIntervals()).toEqual([]);
    expect(stopped).toBe(false);
    rounds[0].end(50); // a near tick: no wake-up is set while stopping
    await stopping;
    expect(scheduler.getTimeouts()).toEqual([]);
    await jest.advanceTimersByTimeAsync(5 * SCHEDULE_POLL_INTERVAL_MS);
    expect(rounds).toHaveLength(1);
  });

  it('shuts down cleanly after ScheduleModule has cleared the registry first', async () => {
    const t = ticker();
    await t.onApplicationBootstrap();
    rounds[0].end(120);
    await settle();
    // What SchedulerOrchestrator.beforeApplicationShutdown does with every entry.
    for (const name of scheduler.getIntervals()) scheduler.deleteInterval(name);
    for (const name of scheduler.getTimeouts()) scheduler.deleteTimeout(name);
    await t.beforeApplicationShutdown();
    await jest.advanceTimersByTimeAsync(5 * SCHEDULE_POLL_INTERVAL_MS);
    expect(rounds).toHaveLength(1);
  });
});
