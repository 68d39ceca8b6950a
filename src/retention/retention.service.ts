import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Pool } from 'pg';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { DELETE_EXPIRED_ACTIONS_SQL } from './sql/delete-expired-actions.sql';

/** Rows deleted per statement (and per transaction). */
export const RETENTION_BATCH_SIZE = 1_000;
/** Name of the interval in the SchedulerRegistry. */
const RETENTION_INTERVAL_NAME = 'actions-retention';

/**
 * Deletes finished actions (done, cancelled, failed under `skip`) and their
 * trace once they are older than RETENTION_DAYS by finished_at. Runs every
 * RETENTION_INTERVAL_MS on instances with the worker enabled, never
 * overlapping itself; RETENTION_DAYS=0 keeps everything. Several instances may
 * run it at once (SKIP LOCKED).
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  private running: Promise<number> | null = null;
  private stopping = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.RETENTION_DAYS === 0 || !this.settings.WORKER_ENABLED) return;
    const tick = () => void this.purge().catch((error: Error) => this.logger.warn(`Retention failed (will retry): ${error.message}`));
    this.scheduler.addInterval(RETENTION_INTERVAL_NAME, setInterval(tick, this.settings.RETENTION_INTERVAL_MS));
    tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.scheduler.doesExist('interval', RETENTION_INTERVAL_NAME)) this.scheduler.deleteInterval(RETENTION_INTERVAL_NAME);
    await this.running?.catch(() => undefined);
  }

  /**
   * Deletes every expired finished action, one batch per statement (each its
   * own short transaction), until a batch comes back short. A call while a run
   * is in progress joins it.
   *
   * @param days retention in days (default RETENTION_DAYS); must be > 0.
   * @returns how many actions were deleted.
   */
  purge(days = this.settings.RETENTION_DAYS): Promise<number> {
    if (days <= 0) return Promise.resolve(0);
    this.running ??= this.purgeAll(days).finally(() => (this.running = null));
    return this.running;
  }

  private async purgeAll(days: number): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await this.pool.query({ text: DELETE_EXPIRED_ACTIONS_SQL, values: [days, RETENTION_BATCH_SIZE] });
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < RETENTION_BATCH_SIZE || this.stopping) break;
    }
    if (total > 0) this.logger.log(`Retention: deleted ${total} finished action(s) older than ${days} day(s)`);
    return total;
  }
}
