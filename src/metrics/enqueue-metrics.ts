import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from './metrics.registry';

/**
 * Counts actions enqueued through this instance (REST API or in-process
 * ActionsService). Plain-SQL producers bypass it; `action_queue_depth`
 * (read from the table) sees them.
 */
@Injectable()
export class EnqueueMetrics {
  private readonly enqueuedTotal: Counter<'type'>;

  constructor(metrics: MetricsRegistry) {
    this.enqueuedTotal = new Counter({
      name: 'action_queue_enqueued_total',
      help: 'Actions enqueued through this instance (idempotent repeats excluded), by type.',
      labelNames: ['type'],
      registers: [metrics.registry],
    });
  }

  /** @param types the type of each newly created action. */
  enqueued(types: string[]): void {
    const counts = new Map<string, number>();
    for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [type, n] of counts) this.enqueuedTotal.inc({ type }, n);
  }
}
