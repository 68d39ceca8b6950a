import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { ActivityResource } from './activity.resource';
import { ActivityQuery } from './dto/activity.query';
import { ACTIVITY_BUCKET_SECONDS, ACTIVITY_SERIES_SQL, ROLL_UP_ACTIVITY_SQL } from './sql/activity.sql';

/**
 * Endings are counted once they are this old (ms): finished_at is stamped a
 * little before its transaction commits, and an ending that commits later
 * than this after its stamp is missed by the charts.
 */
export const ACTIVITY_LAG_MS = 5_000;

/** Minutes of buckets kept (and the longest series `GET /stats/activity` serves). */
export const ACTIVITY_KEEP_MINUTES = 60;

/** Most endings one roll-up reads; a backlog is caught up over the next calls. */
export const ACTIVITY_ROLL_UP_MAX_ROWS = 50_000;

/** Least time between two roll-ups started by this instance (ms). */
const ROLL_UP_MIN_INTERVAL_MS = 1_000;

interface BucketRow {
  start: string;
  done: number;
  failed: number;
  cancelled: number;
  latencyCount: number;
  latencySumMs: number;
  latencyMaxMs: number;
}

/**
 * The queue's recent activity for the dashboard's charts: actions ended per
 * second and their enqueue-to-start latency, in 10-second buckets. The
 * buckets are kept by a roll-up (aq_roll_up_activity) that this service runs
 * when asked, at most once a second per instance, so a read costs the endings
 * since the previous read (at most {@link ACTIVITY_ROLL_UP_MAX_ROWS}) plus the
 * buckets, never the history; with nobody looking, nothing runs.
 */
@Injectable()
export class ActivityService {
  private lastRollUp = 0;

  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Brings the buckets up to date (unless this instance just did) and returns
   * the complete buckets of the last `query.minutes` (default 15), oldest first.
   */
  async activity(query: ActivityQuery): Promise<ActivityResource> {
    const minutes = query.minutes ?? 15;
    if (Date.now() - this.lastRollUp >= ROLL_UP_MIN_INTERVAL_MS) {
      this.lastRollUp = Date.now();
      await this.dataSource.query(ROLL_UP_ACTIVITY_SQL, [ACTIVITY_LAG_MS, ACTIVITY_KEEP_MINUTES, ACTIVITY_ROLL_UP_MAX_ROWS]);
    }
    const [row]: { rolled_up_to: Date; buckets: BucketRow[] }[] = await this.dataSource.query(ACTIVITY_SERIES_SQL, [minutes]);
    return {
      bucketSeconds: ACTIVITY_BUCKET_SECONDS,
      countedUpTo: row.rolled_up_to.toISOString(),
      buckets: row.buckets.map((b) => ({
        start: new Date(b.start).toISOString(),
        done: b.done,
        failed: b.failed,
        cancelled: b.cancelled,
        endedPerSecond: (b.done + b.failed + b.cancelled) / ACTIVITY_BUCKET_SECONDS,
        meanLatencyMs: b.latencyCount > 0 ? b.latencySumMs / b.latencyCount : null,
        maxLatencyMs: b.latencyCount > 0 ? b.latencyMaxMs : null,
      })),
    };
  }
}
