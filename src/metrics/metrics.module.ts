import { Global, Module } from '@nestjs/common';
import { EnqueueMetrics } from './enqueue-metrics';
import { MetricsRegistry } from './metrics.registry';

/** Provides this app's Prometheus registry and the enqueue counter, to every module. */
@Global()
@Module({ providers: [MetricsRegistry, EnqueueMetrics], exports: [MetricsRegistry, EnqueueMetrics] })
export class MetricsModule {}
