import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module';
import { MetricsController } from './metrics.controller';
import { QueueMetricsCollector } from './queue-metrics.collector';

/**
 * `GET /metrics`, served in every role. Kept apart from the global
 * MetricsModule, which QueueModule itself imports for its instruments.
 */
@Module({ imports: [QueueModule], controllers: [MetricsController], providers: [QueueMetricsCollector] })
export class MetricsHttpModule {}
