import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { withLegacyMetricNames } from '../metrics/metric-names';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { QueueMetricsCollector } from './queue-metrics.collector';

/**
 * `GET /metrics`: Prometheus text format. Needs the API key when API_KEY is
 * set. With METRICS_LEGACY_NAMES the renamed metrics are also served under
 * their names of 0.3 (metric-names.ts).
 */
@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly queue: QueueMetricsCollector,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics of this instance (and queue-wide gauges)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format',
    schema: { type: 'string', example: 'action_queue_claimed_total{type="instance.create"} 3' },
  })
  async scrape(): Promise<string> {
    await this.queue.refresh();
    const exposition = await this.metrics.registry.metrics();
    return this.settings.METRICS_LEGACY_NAMES ? withLegacyMetricNames(exposition) : exposition;
  }
}
