import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import type { Pool } from 'pg';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { WorkerService } from '../queue/worker.service';

/** Database ping timeout (ms). */
const PING_TIMEOUT_MS = 2_000;

/** `GET /health`: 200 when the database answers and the worker loop is alive, else 503. */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly worker: WorkerService,
  ) {}

  @Get()
  async check() {
    const database = await this.ping();
    const workerAlive = !this.worker.enabled || Date.now() - this.worker.lastClaimAt < Math.max(3 * this.settings.WORKER_POLL_INTERVAL_MS, 15_000);
    const body = {
      status: database && workerAlive ? 'ok' : 'error',
      database: database ? 'up' : 'down',
      worker: this.worker.enabled ? (workerAlive ? 'up' : 'down') : 'disabled',
    };
    if (body.status !== 'ok') throw new ServiceUnavailableException(body);
    return body;
  }

  private async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS)));
      await Promise.race([this.pool.query('SELECT 1'), timeout]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
