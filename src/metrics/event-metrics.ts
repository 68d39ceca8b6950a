import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { EVENTS_DROPPED_TOTAL } from './metric-names';
import { MetricsRegistry } from './metrics.registry';

/**
 * Counts the lifecycle events this instance dropped because a listener's
 * backlog was full (src/events/listener-mailbox.ts): a listener slower than
 * the queue loses events rather than slowing the queue.
 */
@Injectable()
export class EventMetrics {
  private readonly droppedTotal: Counter<'event'>;

  constructor(metrics: MetricsRegistry) {
    this.droppedTotal = new Counter({
      name: EVENTS_DROPPED_TOTAL,
      help: 'Lifecycle events not delivered to a listener because its backlog was full, by event.',
      labelNames: ['event'],
      registers: [metrics.registry],
    });
  }

  /** @param event the name of the event one listener missed. */
  dropped(event: string): void {
    this.droppedTotal.inc({ event });
  }
}
