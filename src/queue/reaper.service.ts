import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { REAP_EXPIRED_LEASES_SQL } from './sql/reap-expired-leases.sql';
import { WorkerMetrics } from './worker-metrics';

/** Most leases reaped by one statement; the reaper loops while it finds a full batch. */
const REAP_BATCH = 500;

/**
 * Returns actions whose lease expired (their worker died or stalled) to
 * `pending`, or to `failed` when their attempts are spent. Any number of
 * instances may run it at once (rows are locked with SKIP LOCKED).
 */
@Injectable()
export class ReaperService {
  private readonly logger = new Logger(ReaperService.name);
  private running: Promise<number> | null = null;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly metrics: WorkerMetrics,
  ) {}

  /**
   * Reaps every expired lease. A call while one is running joins it.
   * @returns how many leases were reaped.
   */
  reap(): Promise<number> {
    if (!this.running) this.running = this.reapAll().finally(() => (this.running = null));
    return this.running;
  }

  private async reapAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ action_id: string; attempt: number; worker_id: string }>({
        ...REAP_EXPIRED_LEASES_SQL,
        values: [REAP_BATCH],
      });
      for (const r of rows) {
        this.logger.warn(`Lease expired: action ${r.action_id} attempt ${r.attempt} (worker ${r.worker_id}); it will run again or fail`);
      }
      total += rows.length;
      if (rows.length < REAP_BATCH) break;
    }
    if (total > 0) this.metrics.leasesExpired(total);
    return total;
  }
}
