import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { MetricsController } from './metrics.controller';
import { QueueMetricsCollector } from './queue-metrics.collector';
import { TableHealthCollector } from './table-health.collector';

/**
 * `GET /metrics`, served in every role: this instance's instruments and the
 * queue-wide gauges. Above the queue and the actions (it reads both); the
 * registry and the instruments themselves are in src/metrics, below them.
 * TableHealthCollector's gauges read on their own when scraped (prom-client
 * `collect`): nothing calls it.
 */
@Module({ imports: [QueueModule], controllers: [MetricsController], providers: [QueueMetricsCollector, TableHealthCollector] })
export class MetricsEndpointModule {}
