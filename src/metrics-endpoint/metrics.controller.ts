import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { QueueMetricsCollector } from './queue-metrics.collector';

/** `GET /metrics`: Prometheus text format. Needs the API key when API_KEY is set. */
@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly queue: QueueMetricsCollector,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics of this instance (and queue-wide gauges)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string', example: 'actions_claimed_total{type="instance.create"} 3' } })
  async scrape(): Promise<string> {
    await this.queue.refresh();
    return this.metrics.registry.metrics();
  }
}
