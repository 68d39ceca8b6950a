import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics.registry';

/**
 * The worker's Prometheus instruments. Labels are bounded: action type and
 * outcome only, never ids or lock ids.
 */
@Injectable()
export class WorkerMetrics {
  private readonly claimedTotal: Counter<'type'>;
  private readonly endedTotal: Counter<'type' | 'outcome'>;
  private readonly fencedTotal: Counter;
  private readonly leaseExpirationsTotal: Counter;
  private readonly handlerSeconds: Histogram<'type'>;
  private readonly claimDuration: Histogram;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.claimedTotal = new Counter({ name: 'actions_claimed_total', help: 'Attempts started (actions claimed).', labelNames: ['type'], registers });
    this.endedTotal = new Counter({
      name: 'actions_attempts_ended_total',
      help: 'Attempts ended, by outcome: done, retry, failed, released.',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.fencedTotal = new Counter({ name: 'actions_fenced_completions_total', help: 'Attempt outcomes rejected because the lease was lost.', registers });
    this.leaseExpirationsTotal = new Counter({
      name: 'actions_lease_expirations_total',
      help: 'Expired leases reaped by this instance (the action runs again or fails).',
      registers,
    });
    this.handlerSeconds = new Histogram({
      name: 'actions_handler_duration_seconds',
      help: 'Handler run time per attempt.',
      labelNames: ['type'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers,
    });
    this.claimDuration = new Histogram({
      name: 'actions_claim_statement_duration_seconds',
      help: 'Duration of the claim statement.',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers,
    });
  }

  claimed(type: string): void {
    this.claimedTotal.inc({ type });
  }

  handled(type: string, outcome: string, seconds: number): void {
    this.endedTotal.inc({ type, outcome });
    this.handlerSeconds.observe({ type }, seconds);
  }

  leasesExpired(count: number): void {
    this.leaseExpirationsTotal.inc(count);
  }

  fenced(): void {
    this.fencedTotal.inc();
  }

  claimSeconds(seconds: number): void {
    this.claimDuration.observe(seconds);
  }
}
