import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { StatsResource } from '../action.resource';
import { readQueueStats } from './queue-stats.reader';

/** `GET /stats` and {@link ActionQueue.stats}: the queue-wide figures of {@link readQueueStats}, on the queue's DataSource. */
@Injectable()
export class QueueStatsService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Counts by status (some estimated on a large table, listed in `estimated`),
   * pending split into due / scheduled / behind a head, the age of the oldest
   * due action (s), blocked groups.
   */
  stats(): Promise<StatsResource> {
    return readQueueStats((sql, values) => this.dataSource.query(sql, values));
  }
}
