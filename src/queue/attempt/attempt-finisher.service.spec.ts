import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { ActionHandlerHost } from '../../handlers/action-handler.host';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { sleep } from '../../sleep';
import { AttemptToFinish } from './attempt-end';
import { AttemptFinisher } from './attempt-finisher.service';
import { leaseTiming } from '../instance/lease-timing';
import { monotonicNow } from '../instance/monotonic-clock';
import { WorkerSlots } from '../instance/worker-slots';

type Row = { kind: string; id: string; attempts: number; lock_id?: string };

/** A pool whose `query` answers each finishing statement with `answer(ids, attempts, claimLimit)`. */
function fakePool(answer: (ids: string[], attempts: number[], claimLimit: number) => Row[] | Error) {
  const calls: { ids: string[]; claimLimit: number }[] = [];
  const pool = {
    query: async (config: { values: unknown[] }) => {
      const ids = config.values[1] as string[];
      const attempts = config.values[2] as number[];
      const claimLimit = config.values[13] as number;
      calls.push({ ids, claimLimit });
      await sleep(5);
      const rows = answer(ids, attempts, claimLimit);
      if (rows instanceof Error) throw rows;
      return { rows };
    },
  };
  return { pool: pool as unknown as Pool, calls };
}

function finisherWith(pool: Pool, concurrency = 8) {
  const settings = { LEASE_MS: 30_000, DB_POOL_SIZE: 10, WORKER_CONCURRENCY: concurrency } as QueueSettings;
  const registry = new ActionHandlersRegistry();
  registry.register({ instance: {} as ActionHandlerHost, options: { type: 't' }, className: 'T' });
  const slots = new WorkerSlots(settings);
  return { finisher: new AttemptFinisher(pool, settings, 'w1', registry, slots, leaseTiming(settings.LEASE_MS)), slots };
}

const done = (id: string, attempt = 1): AttemptToFinish => ({ actionId: id, attempt, end: { kind: 'done', outcome: 'done', resultJson: '{}' } });
const later = () => monotonicNow() + 60_000;
const finished = (ids: string[], attempts: number[]) => ids.map((id, i) => ({ kind: 'finished', id, attempts: attempts[i] }));

describe('AttemptFinisher', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('writes the attempts that end in one turn of the event loop in one statement', async () => {
    const { pool, calls } = fakePool(finished);
    const { finisher } = finisherWith(pool);
    const results = await Promise.all(['1', '2', '3'].map((id) => finisher.finish(done(id), true, later)));
    expect(calls).toHaveLength(1);
    expect(calls[0].ids).toEqual(['1', '2', '3']);
    expect(results.map((r) => r.recorded)).toEqual([true, true, true]);
  });

  it('says false for an attempt the fence refused', async () => {
    const { pool } = fakePool(() => []);
    const { finisher } = finisherWith(pool);
    expect((await finisher.finish(done('9'), true, later)).recorded).toBe(false);
  });

  it('sends a deferred attempt again until it is recorded', async () => {
    let deferrals = 0;
    const { pool, calls } = fakePool((ids, attempts) =>
      deferrals++ < 2 ? ids.map((id, i) => ({ kind: 'deferred', id, attempts: attempts[i] })) : finished(ids, attempts),
    );
    const { finisher } = finisherWith(pool);
    expect((await finisher.finish(done('4'), true, later)).recorded).toBe(true);
    expect(calls).toHaveLength(3);
  });

  it('retries a failed write past the lease deadline while the instance runs, until the database answers', async () => {
    // A live holder keeps its leases through an outage: a write given up would free
    // the lease to the release of unknown leases, and the finished action would run again.
    let failures = 0;
    const { pool, calls } = fakePool((ids, attempts) => (failures++ < 3 ? new Error('connection refused') : finished(ids, attempts)));
    const { finisher } = finisherWith(pool);
    const passed = monotonicNow() - 1;
    expect((await finisher.finish(done('5'), true, () => passed)).recorded).toBe(true);
    expect(calls).toHaveLength(4);
  });

  it('gives up a failing write once the lease would have expired while the instance stops', async () => {
    const { pool: away } = fakePool(() => new Error('database away'));
    const { finisher: stranded, slots } = finisherWith(away);
    slots.pause('stopping');
    const deadline = monotonicNow() + 150;
    expect((await stranded.finish(done('6'), true, () => deadline)).recorded).toBe(false);
  });

  it('asks for the slots the batch frees and hands what it took to one attempt, with those slots occupied', async () => {
    const { pool, calls } = fakePool((ids, attempts) => [...finished(ids, attempts), { kind: 'claimed', id: '20', attempts: 1, lock_id: '1' }]);
    const { finisher, slots } = finisherWith(pool, 2);
    slots.settle(slots.reserve(), 2, 2); // two attempts run
    const results = await Promise.all([finisher.finish(done('1'), true, later), finisher.finish(done('2'), true, later)]);
    expect(calls[0].claimLimit).toBe(2);
    expect(results.flatMap((r) => r.next.map((unit) => unit[0].id))).toEqual(['20']);
    expect(slots.occupied).toBe(3); // until the two finished attempts vacate theirs
  });

  it('takes nothing for an attempt whose handler has not returned (its slot stays taken)', async () => {
    const { pool, calls } = fakePool(finished);
    const { finisher, slots } = finisherWith(pool, 1);
    slots.settle(slots.reserve(), 1, 1);
    await finisher.finish(done('3'), false, later);
    expect(calls[0].claimLimit).toBe(0);
  });
});
