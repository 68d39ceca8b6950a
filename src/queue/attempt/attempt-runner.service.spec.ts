import { Logger } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { ActionContext, QueuedAction } from '../../handlers/action-context.interface';
import { ActionHandlerHost } from '../../handlers/action-handler.host';
import { ActionHandlerOptions } from '../../handlers/action-handler-options.interface';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { CancelRequestedError, LeaseExpiringError, LeaseLostError, ShutdownError } from '../instance/abort-reasons';
import { sleep } from '../../sleep';
import { AttemptRunner } from './attempt-runner.service';
import { HandlerStop } from '../instance/handler-stop';
import { attemptContext } from '../containment/attempt-context';
import { WatchdogSharedState } from '../containment/watchdog-shared-state';
import { HandlerThreads } from '../isolation/handler-threads.service';
import { LeasedActionRow } from '../sql/leased-action.sql';

const settings = { LEASE_MS: 3_000, RETRY_BACKOFF_BASE_MS: 100, RETRY_BACKOFF_CAP_MS: 1_000 } as QueueSettings;

/** A runner whose registry holds one handler of type `t`. */
function runnerWith(handle: (action: QueuedAction, ctx: ActionContext) => unknown, options: Partial<ActionHandlerOptions> = {}) {
  const registry = new ActionHandlersRegistry();
  const instance = new (class extends ActionHandlerHost {
    handle(action: QueuedAction, ctx: ActionContext) {
      return handle(action, ctx) as Promise<unknown>;
    }
  })();
  registry.register({ instance, options: { type: 't', ...options }, className: 'TestHandler' });
  return new AttemptRunner(settings, 'worker-1', registry, {} as HandlerThreads, new WatchdogSharedState());
}

const row = (over: Partial<LeasedActionRow> = {}): LeasedActionRow => ({
  id: '7',
  lock_id: '1',
  type: 't',
  payload: {},
  attempts: 1,
  charged_attempts: 0,
  max_attempts: 3,
  on_failure: 'block',
  created_at: new Date(),
  idempotency_key: null,
  ...over,
});

const never = () => new Promise<never>(() => undefined);

describe('AttemptRunner', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('stores what the handler returns as JSON', async () => {
    const run = await runnerWith(async () => ({ ok: 1 })).run(row(), new HandlerStop());
    expect(run).toMatchObject({ end: { kind: 'done', outcome: 'done', resultJson: '{"ok":1}' }, settledAtEnd: true });
  });

  it('retries a failure with backoff while the budget lasts, and fails it when the budget is spent', async () => {
    const failing = runnerWith(async () => {
      throw new Error('boom');
    });
    const retry = await failing.run(row({ charged_attempts: 0, max_attempts: 3 }), new HandlerStop());
    expect(retry.end).toMatchObject({ kind: 'retry', outcome: 'error', error: 'boom' });
    expect(retry.end!.delayMs).toBeLessThan(100);
    const spent = await failing.run(row({ charged_attempts: 2, max_attempts: 3 }), new HandlerStop());
    expect(spent.end).toMatchObject({ kind: 'failed', outcome: 'error' });
  });

  it('fails at once on PermanentFailureError, and on a result JSON cannot hold', async () => {
    const permanent = await runnerWith(async () => {
      throw new PermanentFailureError('no');
    }).run(row(), new HandlerStop());
    expect(permanent.end).toMatchObject({ kind: 'failed', error: 'PermanentFailureError: no' });
    const fn = await runnerWith(async () => () => 1).run(row(), new HandlerStop());
    expect(fn.end).toMatchObject({ kind: 'failed' });
    expect(fn.end!.error).toContain('returned a function');
  });

  it('ends an attempt at its timeout even when the handler ignores its signal, and says it has not settled', async () => {
    const started = Date.now();
    const run = await runnerWith(never, { timeoutMs: 50 }).run(row(), new HandlerStop());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(run).toMatchObject({ end: { kind: 'retry', outcome: 'timeout', error: 'HandlerTimeoutError: handler timed out after 50 ms' }, settledAtEnd: false });
  });

  it('ends an attempt whose handler throws a hostile value (a Proxy whose traps throw) as an error, never rejecting', async () => {
    const trap = () => {
      throw new Error('proxy trap');
    };
    const hostile = new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
    const run = await runnerWith(() => Promise.reject(hostile)).run(row(), new HandlerStop());
    expect(run.end).toMatchObject({ kind: 'retry', outcome: 'error' });
  });

  it('records nothing when the lease was lost', async () => {
    const handlerStop = new HandlerStop();
    const running = runnerWith(never).run(row(), handlerStop);
    handlerStop.stop(new LeaseLostError('7', 1));
    expect((await running).end).toBeNull();
  });

  it('releases on shutdown or self-fencing, uncharged, later when the handler has not stopped', async () => {
    for (const reason of [new ShutdownError(), new LeaseExpiringError('7', 1, 200)]) {
      const handlerStop = new HandlerStop();
      const running = runnerWith((_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))).run(
        row(),
        handlerStop,
      );
      handlerStop.stop(reason);
      expect((await running).end).toMatchObject({ kind: 'released', outcome: 'released', delayMs: 0 });
    }
    const stubborn = new HandlerStop();
    const running = runnerWith(never).run(row(), stubborn);
    stubborn.stop(new LeaseExpiringError('7', 1, 200));
    expect((await running).end).toMatchObject({ kind: 'released', delayMs: 2_000 });
  });

  it('leaves a quarantined attempt to expire when its instance cannot keep it leased, once started; releases it when it never started', async () => {
    const started = new HandlerStop();
    const running = runnerWith((_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))).run(
      row(),
      started,
      Promise.resolve(null),
    );
    await new Promise((r) => setImmediate(r)); // the handler has started
    started.stop(new LeaseExpiringError('7', 1, 200));
    expect((await running).end).toBeNull();

    const waiting = new HandlerStop();
    const unstarted = runnerWith(never).run(row(), waiting, new Promise<null>(() => undefined));
    waiting.stop(new LeaseExpiringError('7', 1, 200));
    expect((await unstarted).end).toMatchObject({ kind: 'released', outcome: 'released' });
    // Also when its instance's loop stalled: it ran nothing to blame.
    const waitingInStall = new HandlerStop();
    const unstartedInStall = runnerWith(never).run(row(), waitingInStall, new Promise<null>(() => undefined));
    waitingInStall.stop(new LeaseExpiringError('7', 1, 200, 5_000));
    expect((await unstartedInStall).end).toMatchObject({ kind: 'released', outcome: 'released' });
  });

  it("leaves any started attempt to expire, a loss, when its instance's event loop stalled so that its lease could not be renewed", async () => {
    for (const handler of [
      never,
      (_a: QueuedAction, ctx: ActionContext) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    ]) {
      const handlerStop = new HandlerStop();
      const running = runnerWith(handler).run(row(), handlerStop);
      await new Promise((r) => setImmediate(r)); // the handler has started
      handlerStop.stop(new LeaseExpiringError('7', 1, 200, 1_500));
      expect((await running).end).toBeNull();
    }
  });

  it('ends a cancelled attempt as cancelled once the handler stops, and records nothing while it does not', async () => {
    const stops = new HandlerStop();
    const running = runnerWith((_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))).run(
      row(),
      stops,
    );
    stops.stop(new CancelRequestedError('7'));
    expect((await running).end).toMatchObject({ kind: 'cancelled', outcome: 'cancelled' });
  });

  it('charges a stray error to the attempt whose async context it came from', async () => {
    let reportStray: (() => boolean) | undefined;
    const running = runnerWith(async () => {
      const store = attemptContext.getStore()!;
      reportStray = () => store.strayError(new Error('left behind'));
      await never();
    }).run(row(), new HandlerStop());
    await sleep(10);
    expect(reportStray!()).toBe(true);
    expect((await running).end).toMatchObject({ kind: 'retry', outcome: 'error', error: 'left behind' });
    expect(reportStray!()).toBe(false); // the attempt has ended: only logged
  });
});
