import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { ACTION_STATUSES } from '../vocabulary';
import { QUEUE_STATS_COUNT_CAP, QUEUE_STATS_EXACT_MAX_BYTES, QueueStats, readQueueStats, RunQuery } from '../actions/stats/queue-stats.reader';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { WorkerService } from '../queue/worker/worker.service';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { OTHER_TENANTS_LABEL, TENANT_BACKLOG, TENANT_OLDEST_WAITING_AGE_SECONDS, TENANT_RUNNING } from '../metrics/metric-names';
import { readTenantStats, TenantsStats } from '../actions/stats/tenant-stats.reader';

type PendingState = keyof QueueStats['pendingBreakdown'];

/** The `state` label of `action_queue_pending_by_state` for each part of `/stats` pendingBreakdown (Prometheus labels are snake_case). */
const PENDING_STATE_LABELS: Record<PendingState, string> = {
  due: 'due',
  scheduled: 'scheduled',
  paused: 'paused',
  waitingForRateLimit: 'waiting_for_rate_limit',
  behindHead: 'behind_head',
};

/** Longest a scrape waits for the statistics query (ms); the gauges keep their last values after it. */
const STATS_TIMEOUT_MS = 2_000;

/**
 * Queue-wide gauges, refreshed on each scrape with the figures of `GET /stats`
 * (readQueueStats: partial indexes and statistics, never a scan of the finished
 * history), the per-tenant gauges (readTenantStats, labels bounded by
 * METRICS_TENANTS_TOP), plus this instance's worker slots.
 * Queue-wide values are the same on every instance: sum the counters across
 * instances (WorkerMetrics, EnqueueMetrics), not these gauges.
 */
@Injectable()
export class QueueMetricsCollector {
  private readonly logger = new Logger(QueueMetricsCollector.name);
  private readonly depth: Gauge<'status'>;
  private readonly pendingByState: Gauge<'state'>;
  private readonly blockedGroups: Gauge;
  private readonly paused: Gauge<'scope'>;
  private readonly oldestPendingAge: Gauge;
  private readonly busySlots: Gauge;
  private readonly slots: Gauge;
  private readonly suspectRunning: Gauge;
  private readonly suspectRunningSeconds: Gauge;
  private readonly scrapeErrors: Counter;
  private readonly tenantBacklog: Gauge<'tenant'>;
  private readonly tenantRunning: Gauge<'tenant'>;
  private readonly tenantOldestWaiting: Gauge<'tenant'>;

  constructor(
    metrics: MetricsRegistry,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    private readonly worker: WorkerService,
  ) {
    const registers = [metrics.registry];
    this.depth = new Gauge({
      name: 'action_queue_depth',
      help: `Actions in the table, by status. Over ${QUEUE_STATS_EXACT_MAX_BYTES / 2 ** 20} MB of table, done (and failed, cancelled beyond ${QUEUE_STATS_COUNT_CAP}) are PostgreSQL estimates.`,
      labelNames: ['status'],
      registers,
    });
    this.pendingByState = new Gauge({
      name: 'action_queue_pending_by_state',
      help:
        'Pending actions by state (queue-wide; the states sum to action_queue_depth{status="pending"}): due (claimable now), scheduled (runAt ahead), ' +
        'paused (held by a pause of the queue, type or group), waiting_for_rate_limit (waiting for a token), behind_head (behind their group head).',
      labelNames: ['state'],
      registers,
    });
    this.blockedGroups = new Gauge({ name: 'action_queue_blocked_groups', help: 'Groups held by a failed action under the block policy.', registers });
    this.paused = new Gauge({
      name: 'action_queue_paused',
      help: 'Active pauses by scope (docs/flow-control.md): queue 0 or 1, type and group how many are paused.',
      labelNames: ['scope'],
      registers,
    });
    this.oldestPendingAge = new Gauge({
      name: 'action_queue_oldest_pending_age_seconds',
      help:
        'Seconds the oldest due, claimable action (a pending head with runAt passed, not paused, not waiting for a rate-limit token) ' +
        'has waited since it became due (0 when none).',
      registers,
    });
    this.busySlots = new Gauge({ name: 'action_queue_worker_busy_slots', help: 'Attempts running in this instance now.', registers });
    this.slots = new Gauge({ name: 'action_queue_worker_slots', help: 'Attempts this instance may run at once (0: worker disabled).', registers });
    this.suspectRunning = new Gauge({
      name: 'action_queue_worker_suspect_running',
      help: 'Suspect actions (quarantined: lost with their instance more than once in a row) running in this instance now: 0 or 1.',
      registers,
    });
    this.suspectRunningSeconds = new Gauge({
      name: 'action_queue_worker_suspect_running_seconds',
      help: 'Seconds the suspect running in this instance has run (0 when none).',
      registers,
    });
    this.scrapeErrors = new Counter({ name: 'action_queue_stats_query_errors_total', help: 'Scrapes whose statistics query failed.', registers });
    const tenantLabels = `the top METRICS_TENANTS_TOP tenants by backlog each have their tenant label, the rest are summed under tenant="${OTHER_TENANTS_LABEL}"`;
    this.tenantBacklog = new Gauge({ name: TENANT_BACKLOG, help: `Pending actions per tenant (${tenantLabels}).`, labelNames: ['tenant'], registers });
    this.tenantRunning = new Gauge({ name: TENANT_RUNNING, help: `Running actions per tenant (${tenantLabels}).`, labelNames: ['tenant'], registers });
    this.tenantOldestWaiting = new Gauge({
      name: TENANT_OLDEST_WAITING_AGE_SECONDS,
      help: `Seconds since the tenant's oldest due pending head became due, 0 when none (${tenantLabels}: the largest of theirs).`,
      labelNames: ['tenant'],
      registers,
    });
  }

  /** Updates every gauge; never throws (a failed query is counted and logged). */
  async refresh(): Promise<void> {
    this.busySlots.set(this.worker.busySlots);
    this.slots.set(this.worker.enabled ? this.settings.WORKER_CONCURRENCY : 0);
    const suspect = this.worker.runningSuspect;
    this.suspectRunning.set(suspect ? 1 : 0);
    this.suspectRunningSeconds.set(suspect ? suspect.runningForMs / 1000 : 0);
    try {
      const run: RunQuery = async (text, values) => (await this.pool.query({ text, values, query_timeout: STATS_TIMEOUT_MS } as QueryConfig)).rows;
      const stats = await readQueueStats(run);
      for (const status of ACTION_STATUSES) this.depth.set({ status }, stats.byStatus[status]);
      for (const [state, value] of Object.entries(stats.pendingBreakdown))
        this.pendingByState.set({ state: PENDING_STATE_LABELS[state as PendingState] }, value);
      this.blockedGroups.set(stats.blockedGroups);
      this.paused.set({ scope: 'queue' }, stats.paused.queue ? 1 : 0);
      this.paused.set({ scope: 'type' }, stats.paused.types);
      this.paused.set({ scope: 'group' }, stats.paused.groups);
      this.oldestPendingAge.set(stats.oldestPendingAgeSeconds ?? 0);
      this.setTenantGauges(await readTenantStats(run, this.settings.METRICS_TENANTS_TOP));
    } catch (error) {
      this.scrapeErrors.inc();
      this.logger.warn(`Statistics query for /metrics failed: ${(error as Error).message}`);
    }
  }

  /**
   * Replaces the tenant gauges' series with this scrape's: one per listed
   * tenant and one for the rest, so a tenant that left the top (or has no
   * work left) loses its series, and their number never exceeds
   * METRICS_TENANTS_TOP + 1 per gauge.
   */
  private setTenantGauges(tenants: TenantsStats): void {
    this.tenantBacklog.reset();
    this.tenantRunning.reset();
    this.tenantOldestWaiting.reset();
    for (const t of tenants.top) {
      this.tenantBacklog.set({ tenant: t.tenant }, t.backlog);
      this.tenantRunning.set({ tenant: t.tenant }, t.running);
      this.tenantOldestWaiting.set({ tenant: t.tenant }, t.oldestWaitingAgeSeconds ?? 0);
    }
    this.tenantBacklog.set({ tenant: OTHER_TENANTS_LABEL }, tenants.others.backlog);
    this.tenantRunning.set({ tenant: OTHER_TENANTS_LABEL }, tenants.others.running);
    this.tenantOldestWaiting.set({ tenant: OTHER_TENANTS_LABEL }, tenants.others.oldestWaitingAgeSeconds ?? 0);
  }
}
