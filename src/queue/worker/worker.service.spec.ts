import { Logger } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { AttemptExecutor, Continuation } from '../attempt/attempt-executor.service';
import { ClaimedUnits, ClaimerService } from '../claim/claimer.service';
import { LeaseKeeper } from '../lease/lease-keeper.service';
import { ReapedLeases } from '../lease/reaped-leases';
import { NotificationListener } from '../wake/notification-listener.service';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { SuspectRunner } from './suspect-runner.service';
import { WakeLeadership } from '../wake/wake-leadership';
import { WakeUpPlan } from '../wake/wake-up-plan';
import { CLAIM_ERROR_PAUSE_MS, WorkerService } from './worker.service';
import { WorkerSlots } from '../instance/worker-slots';

/** Far beyond any test's fake time: the safety-net poll never fires by itself. */
const POLL_NEVER_MS = 3_600_000;
const CONCURRENCY = 4;

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i + 1) }) as unknown as LeasedActionRow);

/**
 * The worker loop with fakes around it: each claim statement waits for the
 * test (`claims[i].resolve({ units, sentAt })`), attempts never end, and the
 * next due time is what `nextDue` says. The slots are the real WorkerSlots.
 */
function loopWith(nextDue: { waitMs: number | null; suspectWaitMs: number | null } = { waitMs: null, suspectWaitMs: null }) {
  const settings = {
    WORKER_ENABLED: true,
    WORKER_CONCURRENCY: CONCURRENCY,
    WORKER_POLL_INTERVAL_MS: POLL_NEVER_MS,
    LEASE_MS: 30_000,
    SHUTDOWN_TIMEOUT_MS: 0,
  } as QueueSettings;
  const slots = new WorkerSlots(settings);
  const claims: { limit: number; resolve: (c: ClaimedUnits) => void; reject: (e: Error) => void }[] = [];
  let nextDueAsked = 0;
  const claimer = {
    claim: (limit: number) => {
      const d = deferred<ClaimedUnits>();
      claims.push({ limit, resolve: d.resolve, reject: d.reject });
      return d.promise;
    },
    nextDue: async () => {
      nextDueAsked++;
      return nextDue;
    },
  } as unknown as ClaimerService;
  const executor = {
    activeAttempts: 0,
    whenIdle: async () => undefined,
    execute: () => new Promise<Continuation>(() => undefined),
  } as unknown as AttemptExecutor;
  const leases = { cancelRequested: () => undefined, abortAll: () => undefined } as unknown as LeaseKeeper;
  const listener = { start: () => undefined, stop: async () => undefined } as unknown as NotificationListener;
  let suspectAsks = 0;
  const suspects = { markMaybeDue: () => void suspectAsks++, runOne: () => null, runningSuspect: null } as unknown as SuspectRunner;
  const wakeUp: WakeUpPlan = { listenUrl: null, shortPollMs: null, warning: null } as unknown as WakeUpPlan;
  // No LISTEN leadership (no connection to lead on): every wake-up and poll claims, as without one.
  const leadership = { leads: false, probe: async () => null, relay: () => undefined } as unknown as WakeLeadership;
  const reaped = new ReapedLeases();
  const worker = new WorkerService(settings, slots, claimer, executor, leases, listener, suspects, wakeUp, leadership, reaped);
  return { worker, slots, claims, reaped, nextDueAsked: () => nextDueAsked, suspectAsks: () => suspectAsks };
}

describe('WorkerService: when the loop claims', () => {
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('claims for every free slot at start-up', async () => {
    const { worker, claims } = loopWith();
    worker.onApplicationBootstrap();
    expect(claims.map((c) => c.limit)).toEqual([CONCURRENCY]);
    claims[0].resolve({ units: [], sentAt: 0 });
    await worker.beforeApplicationShutdown();
  });

  it('never runs two claim rounds at once: requests during a round ask for exactly one more round', async () => {
    const { worker, claims } = loopWith();
    worker.onApplicationBootstrap();
    worker.requestClaim('wake');
    worker.requestClaim('wake');
    worker.requestClaim('wake');
    expect(claims).toHaveLength(1);
    claims[0].resolve({ units: rowsOf(1).map((row) => [row]), sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    // One more round, for the slots the first left free.
    expect(claims.map((c) => c.limit)).toEqual([CONCURRENCY, CONCURRENCY - 1]);
    claims[1].resolve({ units: [], sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    expect(claims).toHaveLength(2);
    await worker.beforeApplicationShutdown();
  });

  it('after a claim that found the queue empty, a freed slot does not claim, a wake-up does', async () => {
    const { worker, claims } = loopWith();
    worker.onApplicationBootstrap();
    claims[0].resolve({ units: [], sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    worker.requestClaim('slot');
    expect(claims).toHaveLength(1);
    worker.requestClaim('wake');
    expect(claims).toHaveLength(2);
    claims[1].resolve({ units: [], sentAt: 0 });
    await worker.beforeApplicationShutdown();
  });

  it('a claim that takes every slot it asked for does not look for the next due time; one that finds less does', async () => {
    const full = loopWith();
    full.worker.onApplicationBootstrap();
    full.claims[0].resolve({ units: rowsOf(CONCURRENCY).map((row) => [row]), sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    expect(full.nextDueAsked()).toBe(0);
    await full.worker.beforeApplicationShutdown();

    const partial = loopWith();
    partial.worker.onApplicationBootstrap();
    partial.claims[0].resolve({ units: rowsOf(1).map((row) => [row]), sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    expect(partial.nextDueAsked()).toBe(1);
    await partial.worker.beforeApplicationShutdown();
  });

  it('claims again when the next scheduled head comes due, without waiting for the poll', async () => {
    const { worker, claims } = loopWith({ waitMs: 5_000, suspectWaitMs: null });
    worker.onApplicationBootstrap();
    claims[0].resolve({ units: [], sentAt: 0 });
    await jest.advanceTimersByTimeAsync(4_900);
    expect(claims).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    expect(claims).toHaveLength(2);
    claims[1].resolve({ units: [], sentAt: 0 });
    await worker.beforeApplicationShutdown();
  });

  it('after a failed claim, gives its slots back and drops wake-ups for CLAIM_ERROR_PAUSE_MS', async () => {
    const { worker, slots, claims } = loopWith();
    worker.onApplicationBootstrap();
    claims[0].reject(new Error('connection refused'));
    await jest.advanceTimersByTimeAsync(0);
    // The failed claim gave its slots back.
    expect(slots.reserve().slots).toBe(CONCURRENCY);
    worker.requestClaim('wake');
    expect(claims).toHaveLength(1);
    await worker.beforeApplicationShutdown();
  });

  it('retries a failed claim once the pause is over', async () => {
    const { worker, claims } = loopWith();
    worker.onApplicationBootstrap();
    claims[0].reject(new Error('connection refused'));
    await jest.advanceTimersByTimeAsync(CLAIM_ERROR_PAUSE_MS - 1);
    expect(claims).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(20);
    expect(claims).toHaveLength(2);
    claims[1].resolve({ units: [], sentAt: 0 });
    await worker.beforeApplicationShutdown();
  });

  it('claims nothing once shutdown began', async () => {
    const { worker, claims } = loopWith();
    worker.onApplicationBootstrap();
    claims[0].resolve({ units: [], sentAt: 0 });
    await worker.beforeApplicationShutdown();
    worker.requestClaim('wake');
    expect(claims).toHaveLength(1);
  });
});

describe('WorkerService: after the reaper reaped leases', () => {
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('asks its suspect runner for a suspect at once while it runs, and no more once stopped', async () => {
    const { worker, claims, reaped, suspectAsks } = loopWith();
    reaped.publish(2);
    expect(suspectAsks()).toBe(0);
    worker.onApplicationBootstrap();
    claims[0].resolve({ units: [], sentAt: 0 });
    await jest.advanceTimersByTimeAsync(0);
    const before = suspectAsks();
    reaped.publish(2);
    expect(suspectAsks()).toBe(before + 1);
    await worker.beforeApplicationShutdown();
    reaped.publish(1);
    expect(suspectAsks()).toBe(before + 1);
  });
});
