import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { StatsResource } from '../action.resource';
import { readQueueStats } from './queue-stats.reader';
import { readTenantStats } from './tenant-stats.reader';

/**
 * `GET /stats` and {@link ActionQueue.stats}: the queue-wide figures of
 * {@link readQueueStats} and the per-tenant ones of {@link readTenantStats}
 * (STATS_TENANTS_TOP tenants by name), on the queue's DataSource.
 */
@Injectable()
export class QueueStatsService {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /**
   * Counts by status (some estimated on a large table, listed in `estimated`),
   * pending split into due / scheduled / behind a head, the age of the oldest
   * due action (s), blocked groups, and the live work of the tenants with the
   * largest backlog (the rest summed).
   */
  async stats(): Promise<StatsResource> {
    const run = (sql: string, values: unknown[]): Promise<Record<string, unknown>[]> => this.dataSource.query(sql, values);
    const queue = await readQueueStats(run);
    return { ...queue, tenants: await readTenantStats(run, this.settings.STATS_TENANTS_TOP) };
  }
}
