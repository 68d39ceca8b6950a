import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * Sampling interval (ms) of the event-loop delay histogram behind
 * `nodejs_eventloop_lag_*`: prom-client's default (`eventLoopMonitoringPrecision`).
 * Every sample is a timer that wakes the event loop (about 3.6 ms of CPU a
 * second on an idle instance, bench/README.md, "Idle instances", 2026-12-03),
 * but the histogram records the time between samples, interval included: at
 * 100 ms an idle, healthy instance read a lag of 0.1 s in every series, which
 * breaks the usual alerts and dashboards. So the default stays.
 */
export const EVENT_LOOP_SAMPLE_MS = 10;

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
