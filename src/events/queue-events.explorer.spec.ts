import { Injectable, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MetricsModule } from '../metrics/metrics.module';
import { EventsModule } from './events.module';
import { OnQueueEvent } from './on-queue-event.decorator';
import { QueueEventSink } from './queue-event-sink';

/** Resolves after `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

const at = new Date(0);

@Injectable()
class Listener {
  readonly got: string[] = [];

  @OnQueueEvent('completed')
  onCompleted(event: { actionId: string }) {
    this.got.push(`completed ${event.actionId}`);
  }

  @OnQueueEvent('retried')
  @OnQueueEvent('cancelled')
  onCommand(event: { actionId: string }) {
    this.got.push(`command ${event.actionId}`);
  }

  notAListener() {
    this.got.push('never');
  }
}

/** Request-scoped: no single instance to call, so it is left alone rather than failing start-up. */
@Injectable({ scope: Scope.REQUEST })
class RequestScopedListener {
  static readonly calls: string[] = [];

  @OnQueueEvent('completed')
  onCompleted(event: { actionId: string }) {
    RequestScopedListener.calls.push(event.actionId);
  }
}

describe('QueueEventsExplorer', () => {
  async function start() {
    const moduleRef = await Test.createTestingModule({ imports: [MetricsModule, EventsModule], providers: [Listener, RequestScopedListener] }).compile();
    await moduleRef.init();
    return { moduleRef, sink: moduleRef.get(QueueEventSink), listener: moduleRef.get(Listener) };
  }

  it('subscribes each decorated method of a singleton, stacked decorators included, called on its instance', async () => {
    const { moduleRef, sink, listener } = await start();
    try {
      expect(sink.wanted('completed')).toBe(true);
      expect(sink.wanted('failed')).toBe(false);
      sink.publish('completed', { actionId: '1', lockId: null, type: 't', attempt: 1, at });
      sink.publish('retried', { actionId: '2', lockId: null, type: 't', inPlace: true, retriedAs: '2', at });
      sink.publish('cancelled', { actionId: '3', lockId: null, type: 't', by: 'command', at });
      await turns(5);
      expect(listener.got.sort()).toEqual(['command 2', 'command 3', 'completed 1']);
      expect(RequestScopedListener.calls).toEqual([]);
    } finally {
      await moduleRef.close();
    }
  });

  it('unsubscribes them when the app closes', async () => {
    const { moduleRef, sink, listener } = await start();
    await moduleRef.close();
    expect(sink.wanted('completed')).toBe(false);
    sink.publish('completed', { actionId: '1', lockId: null, type: 't', attempt: 1, at });
    await turns(5);
    expect(listener.got).toEqual([]);
  });

  it('refuses an unknown event name when the class is declared', () => {
    expect(() => OnQueueEvent('done' as 'completed')).toThrow(
      '@OnQueueEvent: unknown queue event "done": one of completed, failed, retried, cancelled, blocked, unblocked',
    );
  });
});
