import { Global, Module } from '@nestjs/common';
import { EnqueueMetrics } from './enqueue-metrics';
import { EventMetrics } from './event-metrics';
import { MetricsRegistry } from './metrics.registry';

/** Provides this app's Prometheus registry, the enqueue counter and the dropped-events counter, to every module. */
@Global()
@Module({ providers: [MetricsRegistry, EnqueueMetrics, EventMetrics], exports: [MetricsRegistry, EnqueueMetrics, EventMetrics] })
export class MetricsModule {}
