import type { Pool } from 'pg';
import type { QueueSettings } from '../config/settings';
import { QueueMetricsCollector } from '../metrics-endpoint/queue-metrics.collector';
import { TableHealthCollector } from '../metrics-endpoint/table-health.collector';
import type { WorkerService } from '../queue/worker/worker.service';
import { WorkerMetrics } from '../queue/instance/worker-metrics';
import { EnqueueMetrics } from './enqueue-metrics';
import { EventMetrics } from './event-metrics';
import { LEGACY_METRIC_NAMES, METRIC_PREFIX, METRICS_NEW_IN_0_4, withLegacyMetricNames } from './metric-names';
import { MetricsRegistry } from './metrics.registry';

/** Names of the queue's own metrics (not Node's or the process's defaults), as its collectors register them. */
function queueMetricNames(): string[] {
  const metrics = new MetricsRegistry();
  new EnqueueMetrics(metrics);
  new WorkerMetrics(metrics);
  new EventMetrics(metrics);
  // The constructors only register their metrics; nothing here is read until a scrape.
  new QueueMetricsCollector(metrics, {} as Pool, {} as QueueSettings, {} as WorkerService);
  new TableHealthCollector(metrics, {} as Pool);
  // getMetricsAsArray: the registered metrics, without collecting (no query runs).
  const all = metrics.registry.getMetricsAsArray().map((m) => m.name);
  return all.filter((name) => !name.startsWith('nodejs_') && !name.startsWith('process_')).sort();
}

describe('metric names', () => {
  it('every metric of the queue carries the product prefix, and each has its old name listed unless it is new in 0.4', () => {
    const names = queueMetricNames();
    expect(names.length).toBeGreaterThanOrEqual(32);
    expect(names.filter((name) => !name.startsWith(METRIC_PREFIX))).toEqual([]);
    expect([...LEGACY_METRIC_NAMES.keys(), ...METRICS_NEW_IN_0_4].sort()).toEqual(names);
  });

  it('every old name is the new one with actions_ for action_queue_ (action_queue_depth aside), none taken twice', () => {
    for (const [name, legacy] of LEGACY_METRIC_NAMES) {
      expect(legacy).toBe(name === 'action_queue_depth' ? 'actions_queue_depth' : name.replace(/^action_queue_/, 'actions_'));
    }
    expect(new Set(LEGACY_METRIC_NAMES.values()).size).toBe(LEGACY_METRIC_NAMES.size);
  });
});

describe('withLegacyMetricNames', () => {
  const exposition = [
    '# HELP action_queue_claimed_total Attempts started (actions claimed).',
    '# TYPE action_queue_claimed_total counter',
    'action_queue_claimed_total{type="a"} 3',
    '',
    '# HELP action_queue_claim_statement_duration_seconds Duration of the claim statement.',
    '# TYPE action_queue_claim_statement_duration_seconds histogram',
    'action_queue_claim_statement_duration_seconds_bucket{le="0.001"} 1',
    'action_queue_claim_statement_duration_seconds_sum 0.0004',
    'action_queue_claim_statement_duration_seconds_count 1',
    '',
    '# HELP process_cpu_seconds_total CPU.',
    '# TYPE process_cpu_seconds_total counter',
    'process_cpu_seconds_total 1.5',
    '',
  ].join('\n');

  it('serves each renamed family again under its old name, histogram samples included, after the original text', () => {
    const text = withLegacyMetricNames(exposition);
    expect(text.startsWith(exposition)).toBe(true);
    expect(text.slice(exposition.length).split('\n')).toEqual([
      '# HELP actions_claimed_total Old name of action_queue_claimed_total (METRICS_LEGACY_NAMES, removed in 0.5): Attempts started (actions claimed).',
      '# TYPE actions_claimed_total counter',
      'actions_claimed_total{type="a"} 3',
      '# HELP actions_claim_statement_duration_seconds Old name of action_queue_claim_statement_duration_seconds (METRICS_LEGACY_NAMES, removed in 0.5): Duration of the claim statement.',
      '# TYPE actions_claim_statement_duration_seconds histogram',
      'actions_claim_statement_duration_seconds_bucket{le="0.001"} 1',
      'actions_claim_statement_duration_seconds_sum 0.0004',
      'actions_claim_statement_duration_seconds_count 1',
      '',
    ]);
  });

  it('leaves a text without renamed families as it is', () => {
    const defaults = '# HELP process_cpu_seconds_total CPU.\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n';
    expect(withLegacyMetricNames(defaults)).toBe(defaults);
  });
});
