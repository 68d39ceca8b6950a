import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { EventMetrics } from '../metrics/event-metrics';
import { ListenerErrorLog } from './listener-error-log';
import { ListenerMailbox } from './listener-mailbox';
import { QUEUE_EVENT_NAMES, QueueEventName } from './queue-event-names';
import type { QueueEventPayloads } from './queue-event-payloads';
import { QueueEventSink } from './queue-event-sink';
import { QueueEventListener, QueueEventListenerOptions, QueueEvents } from './queue-events';

/** Events one listener may have waiting before new ones are dropped, unless it says otherwise. */
export const DEFAULT_MAX_BACKLOG = 1_000;

/**
 * The implementation of {@link QueueEvents} (what apps inject) and of
 * QueueEventSink (what the worker and the commands publish to): one set of
 * listeners per event, each behind its own ListenerMailbox, whose drops are
 * counted by EventMetrics and whose errors are logged here (ListenerErrorLog:
 * the first at once, then at most one line per 10 s with a count).
 */
@Injectable()
export class QueueEventBus extends QueueEvents implements QueueEventSink, OnModuleDestroy {
  private readonly logger = new Logger(QueueEventBus.name);
  private readonly listeners = new Map<QueueEventName, Set<ListenerMailbox<QueueEventPayloads[QueueEventName]>>>(
    QUEUE_EVENT_NAMES.map((name) => [name, new Set()]),
  );

  constructor(private readonly metrics: EventMetrics) {
    super();
  }

  /** {@inheritDoc QueueEvents.on} */
  on<N extends QueueEventName>(name: N, listener: QueueEventListener<N>, options: QueueEventListenerOptions = {}): () => void {
    const set = this.listeners.get(name);
    if (!set) throw new TypeError(`unknown queue event ${JSON.stringify(name)}: one of ${QUEUE_EVENT_NAMES.join(', ')}`);
    if (typeof listener !== 'function') throw new TypeError(`the listener of "${name}" must be a function`);
    const maxBacklog = options.maxBacklog ?? DEFAULT_MAX_BACKLOG;
    if (!Number.isInteger(maxBacklog) || maxBacklog < 1) throw new TypeError(`maxBacklog must be a positive integer, not ${String(maxBacklog)}`);
    const label = options.name ?? (listener.name || 'anonymous listener');
    const errors = new ListenerErrorLog((message, stack) => this.logger.error(message, stack));
    const mailbox = new ListenerMailbox<QueueEventPayloads[QueueEventName]>(
      listener as (payload: QueueEventPayloads[QueueEventName]) => unknown,
      maxBacklog,
      () => this.metrics.dropped(name),
      (error) => errors.report(`Listener ${label} of queue event "${name}"`, error),
    );
    set.add(mailbox);
    return () => {
      set.delete(mailbox);
      mailbox.close();
    };
  }

  /** {@inheritDoc QueueEventSink.publish} */
  publish<N extends QueueEventName>(name: N, payload: QueueEventPayloads[N]): void {
    const set = this.listeners.get(name);
    if (!set || set.size === 0) return;
    // One frozen object for every listener: none can change what another sees.
    const shared: QueueEventPayloads[QueueEventName] = payload;
    Object.freeze(shared);
    for (const mailbox of set) mailbox.post(shared);
  }

  /** {@inheritDoc QueueEventSink.wanted} */
  wanted(name: QueueEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
  }

  /** Stops every delivery when the app closes. */
  onModuleDestroy(): void {
    for (const set of this.listeners.values()) {
      for (const mailbox of set) mailbox.close();
      set.clear();
    }
  }
}
