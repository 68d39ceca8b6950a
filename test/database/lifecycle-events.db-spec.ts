// @run-alone (test/support/run-alone.ts): one test compares how long a batch of actions takes with and without misbehaving listeners.
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import {
  ActionContext,
  ActionHandler,
  ActionHandlerHost,
  ActionQueueModule,
  OnQueueEvent,
  QueuedAction,
  QueueEventName,
  QueueEventPayloads,
  QueueEvents,
} from '../../src';
import { CapturingLogger, insertAction, metricSample, sleep, waitFor, withTestApp, withTestDatabase } from '../support';

/**
 * Lifecycle events (src/events/) with the real app on real PostgreSQL: the
 * decorated provider and the QueueEvents.on listeners receive what the worker
 * and the operators' commands changed, after the commit, and no listener can
 * slow or stop the queue.
 *
 * Each test was seen failing against a broken build: without the executor's
 * publishAttemptEnd call (no completed/failed/blocked arrive), without the
 * commands' publishCancel/publishRetry (no retried/cancelled/unblocked), with
 * the executor publishing before the finisher's statement (the listener read
 * `running`), with ListenerMailbox calling the listener at once from post,
 * uncaught (a throwing listener broke the worker's attempts: nothing passed), with
 * its bound check removed (no drop counted), and with the function `on`
 * returns doing nothing (the unsubscribed listener kept receiving).
 */

@ActionHandler('events.ok')
class OkHandler extends ActionHandlerHost {
  async handle(action: QueuedAction) {
    return { echoed: action.id };
  }
}

@ActionHandler({ type: 'events.fail', maxAttempts: 2, backoffBaseMs: 10, backoffCapMs: 20 })
class FailHandler extends ActionHandlerHost {
  async handle(): Promise<never> {
    throw new Error('boom');
  }
}

/** Runs until it is told to stop (a cancel), then returns. */
@ActionHandler('events.hold')
class HoldHandler extends ActionHandlerHost {
  async handle(_action: QueuedAction, ctx: ActionContext) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    return null;
  }
}

type Seen = { name: QueueEventName; payload: QueueEventPayloads[QueueEventName] };

/** A provider of the app that listens as users would, with the decorator. */
@Injectable()
class EventRecorder {
  readonly seen: Seen[] = [];

  @OnQueueEvent('completed')
  onCompleted(payload: QueueEventPayloads['completed']) {
    this.seen.push({ name: 'completed', payload });
  }

  @OnQueueEvent('failed')
  onFailed(payload: QueueEventPayloads['failed']) {
    this.seen.push({ name: 'failed', payload });
  }

  @OnQueueEvent('retried')
  @OnQueueEvent('cancelled')
  onCommand(payload: QueueEventPayloads['retried'] | QueueEventPayloads['cancelled']) {
    this.seen.push({ name: 'inPlace' in payload ? 'retried' : 'cancelled', payload });
  }

  @OnQueueEvent('blocked')
  onBlocked(payload: QueueEventPayloads['blocked']) {
    this.seen.push({ name: 'blocked', payload });
  }

  @OnQueueEvent('unblocked')
  onUnblocked(payload: QueueEventPayloads['unblocked']) {
    this.seen.push({ name: 'unblocked', payload });
  }

  of(actionId: string): Seen[] {
    return this.seen.filter((s) => s.payload.actionId === actionId);
  }
}

@Module({ providers: [OkHandler, FailHandler, HoldHandler, EventRecorder] })
class EventsTestModule {}

describe('lifecycle events', () => {
  const t = withTestApp('lifecycle_events', {
    env: { WORKER_CONCURRENCY: '8', WORKER_POLL_INTERVAL_MS: '100', REAPER_INTERVAL_MS: '200' },
    imports: [EventsTestModule],
  });
  const recorder = () => t.app.get(EventRecorder);
  const events = () => t.app.get(QueueEvents);
  const names = (id: string) =>
    recorder()
      .of(id)
      .map((s) => s.name);

  /** Enqueues `n` actions of `type` (no group) by SQL, returns when all are done (ms taken). */
  async function runBatch(n: number, type: string): Promise<number> {
    const started = Date.now();
    const { rows } = await t.pg.query<{ id: string }>(`INSERT INTO actions (type) SELECT $1 FROM generate_series(1, $2) RETURNING id::text`, [type, n]);
    const ids = rows.map((r) => r.id);
    await waitFor(async () => {
      const { rows: done } = await t.pg.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1::bigint[]) AND status = 'done'`, [ids]);
      return done[0].n === n;
    });
    return Date.now() - started;
  }

  it('a decorated provider receives completed, with the action, its group and its attempt', async () => {
    const id = await insertAction(t.pg, 41, 'events.ok');
    await waitFor(async () => names(id).includes('completed'));
    expect(recorder().of(id)).toEqual([{ name: 'completed', payload: { actionId: id, lockId: '41', type: 'events.ok', attempt: 1, at: expect.any(Date) } }]);
  });

  it('failed with willRetry true, then false with blocked; a retry gives retried and unblocked; a cancel gives cancelled and unblocked', async () => {
    const id = await insertAction(t.pg, 42, 'events.fail');
    await waitFor(async () => names(id).includes('blocked'));
    const [first, second, blocked] = recorder().of(id);
    expect(first).toEqual({
      name: 'failed',
      payload: {
        actionId: id,
        lockId: '42',
        type: 'events.fail',
        attempt: 1,
        outcome: 'error',
        error: 'boom',
        willRetry: true,
        retryInMs: expect.any(Number),
        at: expect.any(Date),
      },
    });
    expect(second).toEqual({
      name: 'failed',
      payload: { actionId: id, lockId: '42', type: 'events.fail', attempt: 2, outcome: 'error', error: 'boom', willRetry: false, at: expect.any(Date) },
    });
    expect(blocked).toEqual({ name: 'blocked', payload: { actionId: id, lockId: '42', type: 'events.fail', error: 'boom', at: expect.any(Date) } });

    await request(t.url).post(`/actions/${id}/retry`).expect(200);
    await waitFor(async () => names(id).filter((n) => n === 'blocked').length === 2);
    expect(names(id)).toEqual(['failed', 'failed', 'blocked', 'retried', 'unblocked', 'failed', 'failed', 'blocked']);
    const [retried, unblocked] = recorder().of(id).slice(3, 5);
    expect(retried.payload).toEqual({ actionId: id, lockId: '42', groupKey: null, type: 'events.fail', inPlace: true, retriedAs: id, at: expect.any(Date) });
    expect(unblocked.payload).toEqual({ actionId: id, lockId: '42', groupKey: null, type: 'events.fail', by: 'retry', at: expect.any(Date) });

    await request(t.url).post(`/actions/${id}/cancel`).expect(200);
    await waitFor(async () => names(id).length === 10);
    expect(recorder().of(id).slice(8)).toEqual([
      { name: 'cancelled', payload: { actionId: id, lockId: '42', groupKey: null, type: 'events.fail', by: 'command', at: expect.any(Date) } },
      { name: 'unblocked', payload: { actionId: id, lockId: '42', groupKey: null, type: 'events.fail', by: 'cancel', at: expect.any(Date) } },
    ]);
  });

  it('a running action cancelled gives cancelled from the worker once its handler stopped; a pending one from the command, without unblocked', async () => {
    const running = await insertAction(t.pg, 43, 'events.hold');
    const behind = await insertAction(t.pg, 43, 'events.ok');
    await waitFor(async () => (await t.pg.query(`SELECT 1 FROM actions WHERE id = $1 AND status = 'running'`, [running])).rowCount === 1);
    await request(t.url).post(`/actions/${behind}/cancel`).expect(200);
    await request(t.url).post(`/actions/${running}/cancel`).expect(200);
    await waitFor(async () => names(running).includes('cancelled'));
    expect(recorder().of(running)).toEqual([
      { name: 'cancelled', payload: { actionId: running, lockId: '43', type: 'events.hold', by: 'worker', attempt: 1, at: expect.any(Date) } },
    ]);
    await waitFor(async () => names(behind).includes('cancelled'));
    expect(names(behind)).toEqual(['cancelled']);
  });

  it('the reaper reports a suspect whose lease expired again as failed for good (lease_expired), and its group blocked', async () => {
    // A type no handler of the app runs: only the stand-in worker below ever holds it.
    const id = await insertAction(t.pg, 46, 'events.lost', {}, 1);
    // A suspect (lost with its instance before) is charged for its next loss (aq_loss_charge).
    await t.pg.query(`UPDATE actions SET quarantined = true WHERE id = $1`, [id]);
    const { rows } = await t.pg.query(`SELECT id::text FROM aq_claim_actions('vanished-worker', ARRAY['events.lost'], ARRAY[NULL::int], 1, 1, true)`);
    expect(rows).toEqual([{ id }]);
    await waitFor(async () => names(id).includes('blocked'));
    const [failed, blocked] = recorder().of(id);
    expect(failed).toEqual({
      name: 'failed',
      payload: {
        actionId: id,
        lockId: '46',
        type: 'events.lost',
        attempt: 1,
        outcome: 'lease_expired',
        error: expect.any(String),
        willRetry: false,
        at: expect.any(Date),
      },
    });
    expect(blocked.payload).toMatchObject({ actionId: id, lockId: '46', type: 'events.lost' });
    expect((await t.pg.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows).toEqual([{ status: 'failed' }]);
  });

  it('a bulk retry of failed skip actions gives retried with each copy, and no unblocked', async () => {
    const since = (await t.pg.query<{ now: Date }>(`SELECT now() AS now`)).rows[0].now.toISOString();
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, on_failure) VALUES (44, 'events.fail', 'skip'), (45, 'events.fail', 'skip') RETURNING id::text`,
    );
    const ids = rows.map((r) => r.id);
    for (const id of ids)
      await waitFor(
        async () =>
          names(id).includes('failed') &&
          recorder()
            .of(id)
            .some((s) => s.name === 'failed' && !('willRetry' in s.payload && s.payload.willRetry)),
      );
    // Under skip a failed action blocks nothing.
    for (const id of ids) expect(names(id)).not.toContain('blocked');
    const applied = await request(t.url)
      .post('/bulk-operations')
      .send({ operation: 'retry', filter: { type: 'events.fail', status: 'failed', createdAfter: since } })
      .expect(201);
    expect(applied.body.applied).toBe(2);
    await waitFor(async () => ids.every((id) => names(id).includes('retried')));
    for (const id of ids) {
      const [retried] = recorder()
        .of(id)
        .filter((s) => s.name === 'retried');
      expect(retried.payload).toMatchObject({ actionId: id, inPlace: false, type: 'events.fail' });
      expect((retried.payload as QueueEventPayloads['retried']).retriedAs).not.toBe(id);
      expect(names(id)).not.toContain('unblocked');
    }
  });

  it('delivers after the commit: the listener reads the status the event announces', async () => {
    const statuses: string[] = [];
    const stop = events().on('completed', async (e) => {
      statuses.push((await t.pg.query<{ status: string }>(`SELECT status FROM actions WHERE id = $1`, [e.actionId])).rows[0].status);
    });
    try {
      await runBatch(20, 'events.ok');
      await waitFor(async () => statuses.length >= 20);
      expect(new Set(statuses)).toEqual(new Set(['done']));
    } finally {
      stop();
    }
  });

  it('unsubscribing stops delivery to that listener only', async () => {
    const got: string[] = [];
    const stop = events().on('completed', (e) => void got.push(e.actionId));
    const first = await insertAction(t.pg, null, 'events.ok');
    await waitFor(async () => got.includes(first));
    stop();
    stop();
    const second = await insertAction(t.pg, null, 'events.ok');
    // The decorated provider still gets it, after which the stopped listener would have too.
    await waitFor(async () => names(second).includes('completed'));
    await sleep(50);
    expect(got).toEqual([first]);
  });

  it('a throwing listener and a hung one neither slow nor stop the queue; the hung one drops beyond its bound, counted', async () => {
    const N = 300;
    const baseline = await runBatch(N, 'events.ok');
    let thrown = 0;
    const stops = [
      events().on('completed', () => {
        thrown++;
        throw new Error('listener bug');
      }),
      events().on('completed', async () => new Promise(() => undefined), { maxBacklog: 10, name: 'hung' }),
      events().on('completed', () => Promise.reject(new Error('async listener bug'))),
    ];
    try {
      const dropsBefore = metricSample((await request(t.url).get('/metrics')).text, 'action_queue_events_dropped_total', 'event="completed"') ?? 0;
      const withListeners = await runBatch(N, 'events.ok');
      // The queue's own pace, plus room for a busier machine: a listener in the
      // worker's path (awaited, or called before the finish resolves) makes the
      // hung one stop the batch outright.
      expect(withListeners).toBeLessThan(baseline * 2 + 2_000);
      // The throwing listener kept receiving every event in spite of its errors.
      await waitFor(async () => thrown >= N);
      // The hung listener took one event, kept 10 waiting and dropped the rest.
      const drops = metricSample((await request(t.url).get('/metrics')).text, 'action_queue_events_dropped_total', 'event="completed"') ?? 0;
      expect(drops - dropsBefore).toBe(N - 11);
    } finally {
      stops.forEach((stop) => stop());
    }
  });

  it('refuses an unknown event name, at decoration and at on()', () => {
    expect(() => OnQueueEvent('finished' as QueueEventName)).toThrow(/unknown queue event "finished"/);
    expect(() => events().on('finished' as QueueEventName, () => undefined)).toThrow(/unknown queue event "finished"/);
    expect(() => events().on('completed', () => undefined, { maxBacklog: 0 })).toThrow(/maxBacklog must be a positive integer/);
  });
});

describe('lifecycle events in an app that embeds ActionQueueModule', () => {
  const db = withTestDatabase('lifecycle_events_embedded');

  it("logs a listener's errors through the app's logger, the first at once and no flood, and keeps delivering to it", async () => {
    @Module({ imports: [ActionQueueModule.forRoot({ database: { url: db.url }, worker: { pollIntervalMs: 100 } }), EventsTestModule] })
    class HostAppModule {}
    const logger = new CapturingLogger();
    const app = await NestFactory.create(HostAppModule, { logger, abortOnError: false });
    await app.init();
    try {
      let calls = 0;
      app.get(QueueEvents).on('completed', function failing() {
        calls++;
        throw new Error('listener bug');
      });
      expect(logger.lines).toContain('EventRecorder.onCompleted listens for queue event "completed"');
      const pg = await db.connect();
      for (let i = 0; i < 5; i++) await insertAction(pg, 47, 'events.ok');
      await waitFor(async () => calls === 5);
      expect(logger.lines.filter((line) => line.includes('Listener failing of queue event "completed" failed'))).toEqual([
        'Listener failing of queue event "completed" failed: listener bug',
      ]);
    } finally {
      await app.close();
    }
  });
});
