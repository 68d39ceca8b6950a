import { Logger } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { AttemptExecutor, Continuation } from '../attempt/attempt-executor.service';
import { Claimed, ClaimerService } from '../claim/claimer.service';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { SuspectRunner } from './suspect-runner.service';
import { WorkerSlots } from '../instance/worker-slots';

const CONCURRENCY = 3;
const NOTHING_NEXT: Continuation = { next: [], leasedAt: 0 } as unknown as Continuation;

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const suspectRow = (id: string) => ({ id, type: 't', attempts: 3 }) as unknown as LeasedActionRow;

/**
 * The suspect runner with the real WorkerSlots, a claimer whose suspect
 * claims wait for the test, and an executor whose attempts end when the test
 * says (`attempts[i].resolve(...)`).
 */
function runnerWith() {
  const slots = new WorkerSlots({ WORKER_CONCURRENCY: CONCURRENCY } as QueueSettings);
  const claims: { resolve: (c: Claimed) => void; reject: (e: Error) => void }[] = [];
  const attempts: { row: LeasedActionRow; gate: unknown; resolve: (c: Continuation) => void }[] = [];
  const claimer = {
    claimQuarantined: () => {
      const d = deferred<Claimed>();
      claims.push(d);
      return d.promise;
    },
  } as unknown as ClaimerService;
  const executor = {
    execute: (row: LeasedActionRow, _sentAt: number, gate: unknown) => {
      const d = deferred<Continuation>();
      attempts.push({ row, gate, resolve: d.resolve });
      return d.promise;
    },
  } as unknown as AttemptExecutor;
  return { runner: new SuspectRunner(slots, claimer, executor), slots, claims, attempts };
}

/** Lets the promise callbacks queued so far run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('SuspectRunner: one suspect at a time per instance, in one slot beside other work', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('runs a due suspect in one slot and takes no second one while it runs', async () => {
    const { runner, slots, claims, attempts } = runnerWith();
    const run = runner.runOne();
    expect(run).not.toBeNull();
    claims[0].resolve({ rows: [suspectRow('7')], sentAt: 0 });
    await settled();
    expect(attempts.map((a) => a.row.id)).toEqual(['7']);
    expect(slots.occupied).toBe(1);
    expect(runner.running).toBe(true);
    expect(runner.runningSuspect?.actionId).toBe('7');
    // A second suspect may be due: not on this instance while one runs.
    runner.markMaybeDue();
    expect(runner.runOne()).toBeNull();
    expect(claims).toHaveLength(1);
    // The other slots keep taking work.
    expect(slots.reserve().slots).toBe(CONCURRENCY - 1);
    attempts[0].resolve(NOTHING_NEXT);
    await expect(run).resolves.toBe(NOTHING_NEXT);
    expect(runner.running).toBe(false);
    expect(runner.runningSuspect).toBeNull();
  });

  it('runs the attempt as a suspect: its start gate is already open, so the runner leaves a lost lease to expire', async () => {
    const { runner, claims, attempts } = runnerWith();
    void runner.runOne();
    claims[0].resolve({ rows: [suspectRow('7')], sentAt: 0 });
    await settled();
    await expect(attempts[0].gate).resolves.toBeNull();
  });

  it('after an ask that found no suspect, asks again only once a poll says one may be due', async () => {
    const { runner, slots, claims } = runnerWith();
    const run = runner.runOne();
    claims[0].resolve({ rows: [], sentAt: 0 });
    await expect(run).resolves.toBeNull();
    const claim = slots.reserve();
    expect(claim.slots).toBe(CONCURRENCY);
    slots.settle(claim, 0, null);
    expect(runner.runOne()).toBeNull();
    runner.markMaybeDue();
    expect(runner.runOne()).not.toBeNull();
    expect(claims).toHaveLength(2);
  });

  it('keeps one slot from claims while a suspect may be due, and gives it to the suspect', () => {
    const { runner, slots } = runnerWith();
    runner.markMaybeDue();
    const claim = slots.reserve();
    expect(claim.slots).toBe(CONCURRENCY - 1);
    expect(runner.runOne()).not.toBeNull();
    expect(slots.reserve().slots).toBe(0);
    slots.settle(claim, 0, null);
  });

  it('asks nothing when no slot is free or the worker is paused', () => {
    const full = runnerWith();
    full.slots.settle(full.slots.reserve(), CONCURRENCY, CONCURRENCY);
    expect(full.runner.runOne()).toBeNull();
    const paused = runnerWith();
    paused.slots.pause('fenced');
    expect(paused.runner.runOne()).toBeNull();
    expect([...full.claims, ...paused.claims]).toHaveLength(0);
  });

  it('gives the slot back after a failed claim and waits for the next poll, never rejecting', async () => {
    const { runner, slots, claims } = runnerWith();
    const run = runner.runOne();
    claims[0].reject(new Error('connection refused'));
    await expect(run).resolves.toBeNull();
    expect(slots.reserve().slots).toBe(CONCURRENCY);
    expect(runner.runOne()).toBeNull();
  });
});
