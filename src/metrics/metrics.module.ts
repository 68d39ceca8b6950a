import { Global, Module } from '@nestjs/common';
import { MetricsRegistry } from './metrics.registry';

/** Provides this app's Prometheus registry. */
@Global()
@Module({ providers: [MetricsRegistry], exports: [MetricsRegistry] })
export class MetricsModule {}
