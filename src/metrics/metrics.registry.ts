import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * Sampling interval (ms) of the event-loop delay histogram behind
 * `nodejs_eventloop_lag_*` (prom-client's `eventLoopMonitoringPrecision`,
 * whose default is 10). Every sample is a timer that wakes the event loop: at
 * 10 ms an idle instance spent about 3.6 ms of CPU a second on it alone, at
 * 100 ms about 0.4 (measured on the benchmark machine, bench/README.md, "Idle
 * instances", 2026-12-03). A stall still shows in full (the delay of the
 * sample it holds back); only stalls shorter than 100 ms between two samples
 * can go unseen, and the event-loop watchdog does not rely on this histogram.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * This app instance's Prometheus registry (not prom-client's global one, so
 * several apps in one process, as in tests, do not collide).
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }
}
