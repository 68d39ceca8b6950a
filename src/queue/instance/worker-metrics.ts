import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '../../metrics/metrics.registry';

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
  private readonly heartbeatFailuresTotal: Counter;
  private readonly selfFencedTotal: Counter;
  private readonly stuckHandlersGauge: Gauge;
  private readonly strayErrorsTotal: Counter<'type'>;
  private readonly chunkSize: Histogram<'type'>;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.claimedTotal = new Counter({ name: 'action_queue_claimed_total', help: 'Attempts started (actions claimed).', labelNames: ['type'], registers });
    this.endedTotal = new Counter({
      name: 'action_queue_attempts_ended_total',
      help: 'Attempts ended, by outcome: done, retry, failed, cancelled, released, abandoned (lease lost; nothing recorded).',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.fencedTotal = new Counter({ name: 'action_queue_fenced_completions_total', help: 'Attempt outcomes rejected because the lease was lost.', registers });
    this.leaseExpirationsTotal = new Counter({
      name: 'action_queue_lease_expirations_total',
      help: 'Expired leases reaped by this instance (the action runs again or fails).',
      registers,
    });
    this.handlerSeconds = new Histogram({
      name: 'action_queue_handler_duration_seconds',
      help: 'Handler run time per attempt.',
      labelNames: ['type'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers,
    });
    this.claimDuration = new Histogram({
      name: 'action_queue_claim_statement_duration_seconds',
      help: 'Duration of the claim statement.',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers,
    });
    this.heartbeatFailuresTotal = new Counter({
      name: 'action_queue_heartbeat_failures_total',
      help: 'Heartbeats that failed or timed out (leases not extended).',
      registers,
    });
    this.selfFencedTotal = new Counter({
      name: 'action_queue_self_fenced_total',
      help: 'Handlers aborted because their lease could not be renewed before it might expire elsewhere.',
      registers,
    });
    this.stuckHandlersGauge = new Gauge({
      name: 'action_queue_stuck_handlers',
      help: 'Handlers still running after their attempt ended (they ignored their abort signal); each holds a slot.',
      registers,
    });
    this.strayErrorsTotal = new Counter({
      name: 'action_queue_stray_errors_total',
      help: 'Unhandled rejections and uncaught exceptions, by the action type they came from (none: no handler).',
      labelNames: ['type'],
      registers,
    });
    this.chunkSize = new Histogram({
      name: 'action_queue_chunk_size',
      help: 'Actions per ordered chunk started (chunk handlers only).',
      labelNames: ['type'],
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
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

  /** An attempt ended (a chunk's action other than its first: the handler's time is observed once per chunk). */
  ended(type: string, outcome: string): void {
    this.endedTotal.inc({ type, outcome });
  }

  /** An ordered chunk of `size` actions started. */
  chunkStarted(type: string, size: number): void {
    this.chunkSize.observe({ type }, size);
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

  heartbeatFailed(): void {
    this.heartbeatFailuresTotal.inc();
  }

  selfFenced(count: number): void {
    this.selfFencedTotal.inc(count);
  }

  stuckHandlers(count: number): void {
    this.stuckHandlersGauge.set(count);
  }

  strayError(type: string): void {
    this.strayErrorsTotal.inc({ type });
  }
}
