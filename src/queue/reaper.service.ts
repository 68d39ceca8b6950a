import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { REAP_EXPIRED_LEASES_SQL } from './sql/lost-attempts.sql';
import { WorkerMetrics } from './worker-metrics';

/** Most leases reaped by one statement; the reaper loops while it finds a full batch. */
const REAP_BATCH = 500;

/**
 * Ends attempts whose lease expired (their worker died, stalled or lost the
 * database) every REAPER_INTERVAL_MS, on worker instances. The action runs
 * again at once (the statement wakes the workers), uncharged; lost twice in a
 * row it becomes a suspect, and a suspect lost again is charged
 * (src/database/sql/011-lost-attempts-in-parallel.up.sql). Any number of instances may
 * reap at once (SKIP LOCKED); runs never overlap within one.
 */
@Injectable()
export class ReaperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReaperService.name);
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly metrics: WorkerMetrics,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED) return;
    const tick = () => void this.reap().catch((error: Error) => this.logger.warn(`Reaper failed (will retry): ${error.message}`));
    this.timer = setInterval(tick, this.settings.REAPER_INTERVAL_MS);
    tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /**
   * Reaps every expired lease. A call while one is running joins it.
   * @returns how many leases were reaped.
   */
  reap(): Promise<number> {
    this.running ??= this.reapAll().finally(() => (this.running = null));
    return this.running;
  }

  private async reapAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ action_id: string; attempt: number; worker_id: string; status: string; charged: number }>({
        ...REAP_EXPIRED_LEASES_SQL,
        values: [REAP_BATCH],
      });
      for (const r of rows) {
        const charge = r.charged > 0 ? `charged ${r.charged} attempt(s)` : 'not charged';
        this.logger.warn(`Lease expired: action ${r.action_id} attempt ${r.attempt} (worker ${r.worker_id}); now ${r.status}, ${charge}`);
      }
      total += rows.length;
      if (rows.length < REAP_BATCH) break;
    }
    if (total > 0) this.metrics.leasesExpired(total);
    return total;
  }
}
