import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { ACTION_STATUSES } from '../vocabulary';
import { STATS_SQL } from '../actions/sql/manage-actions.sql';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { WorkerService } from '../queue/worker.service';
import { MetricsRegistry } from './metrics.registry';

/** Longest a scrape waits for the statistics query (ms); the gauges keep their last values after it. */
const STATS_TIMEOUT_MS = 2_000;

interface StatsRow {
  by_status: Partial<Record<string, number>>;
  oldest_pending_age_s: number | null;
  blocked_groups: number;
}

/**
 * Queue-wide gauges, refreshed on each scrape with one cheap statement
 * (STATS_SQL, the same as `GET /stats`), plus this instance's worker slots.
 * Queue-wide values are the same on every instance: sum the counters across
 * instances (WorkerMetrics, EnqueueMetrics), not these gauges.
 */
@Injectable()
export class QueueMetricsCollector {
  private readonly logger = new Logger(QueueMetricsCollector.name);
  private readonly depth: Gauge<'status'>;
  private readonly blockedGroups: Gauge;
  private readonly oldestPendingAge: Gauge;
  private readonly busySlots: Gauge;
  private readonly slots: Gauge;
  private readonly scrapeErrors: Counter;

  constructor(
    metrics: MetricsRegistry,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly worker: WorkerService,
  ) {
    const registers = [metrics.registry];
    this.depth = new Gauge({ name: 'actions_queue_depth', help: 'Actions in the table, by status.', labelNames: ['status'], registers });
    this.blockedGroups = new Gauge({ name: 'actions_blocked_groups', help: 'Groups held by a failed action under the block policy.', registers });
    this.oldestPendingAge = new Gauge({
      name: 'actions_oldest_pending_age_seconds',
      help: 'Age of the oldest pending action (0 when none).',
      registers,
    });
    this.busySlots = new Gauge({ name: 'actions_worker_busy_slots', help: 'Attempts running in this instance now.', registers });
    this.slots = new Gauge({ name: 'actions_worker_slots', help: 'Attempts this instance may run at once (0: worker disabled).', registers });
    this.scrapeErrors = new Counter({ name: 'actions_stats_query_errors_total', help: 'Scrapes whose statistics query failed.', registers });
  }

  /** Updates every gauge; never throws (a failed query is counted and logged). */
  async refresh(): Promise<void> {
    this.busySlots.set(this.worker.busySlots);
    this.slots.set(this.worker.enabled ? this.settings.WORKER_CONCURRENCY : 0);
    try {
      const { rows } = await this.pool.query<StatsRow>({ text: STATS_SQL, query_timeout: STATS_TIMEOUT_MS } as QueryConfig);
      const row = rows[0];
      for (const status of ACTION_STATUSES) this.depth.set({ status }, row.by_status[status] ?? 0);
      this.blockedGroups.set(row.blocked_groups);
      this.oldestPendingAge.set(row.oldest_pending_age_s ?? 0);
    } catch (error) {
      this.scrapeErrors.inc();
      this.logger.warn(`Statistics query for /metrics failed: ${(error as Error).message}`);
    }
  }
}
