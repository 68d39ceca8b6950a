import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AdaptiveBatchSize } from '../../database/adaptive-batch-size';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { isStatementTimeout } from '../../database/statement-timeout';
import { ActivityResource } from './activity.resource';
import { ActivityQuery } from '../dto/activity.query';
import { ACTIVITY_BUCKET_SECONDS, ACTIVITY_SERIES_SQL, ROLL_UP_ACTIVITY_SQL } from '../sql/activity.sql';

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

/** Fewest endings a roll-up reads when the statement_timeout keeps cancelling larger passes. */
export const ACTIVITY_ROLL_UP_MIN_ROWS = 500;

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
 *
 * Under a short statement_timeout (a DBA's `ALTER DATABASE … SET
 * statement_timeout`) a cancelled roll-up is retried at once with half as
 * many endings (down to {@link ACTIVITY_ROLL_UP_MIN_ROWS}), and the buckets
 * are served as far as they are counted (`countedUpTo` says how far): the
 * chart lags instead of the route failing.
 */
@Injectable()
export class ActivityService {
  private readonly logger = new Logger(ActivityService.name);
  private lastRollUp = 0;
  private readonly rollUpRows = new AdaptiveBatchSize(ACTIVITY_ROLL_UP_MAX_ROWS, ACTIVITY_ROLL_UP_MIN_ROWS);

  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Brings the buckets up to date (unless this instance just did) and returns
   * the complete buckets of the last `query.minutes` (default 15), oldest first.
   */
  async activity(query: ActivityQuery): Promise<ActivityResource> {
    const minutes = query.minutes ?? 15;
    if (Date.now() - this.lastRollUp >= ROLL_UP_MIN_INTERVAL_MS) {
      this.lastRollUp = Date.now();
      await this.rollUp();
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

  /** One roll-up pass, made smaller until it fits the statement_timeout (or gives up at the smallest). */
  private async rollUp(): Promise<void> {
    for (;;) {
      try {
        await this.dataSource.query(ROLL_UP_ACTIVITY_SQL, [ACTIVITY_LAG_MS, ACTIVITY_KEEP_MINUTES, this.rollUpRows.size]);
        this.rollUpRows.succeeded();
        return;
      } catch (error) {
        if (!isStatementTimeout(error)) throw error;
        const tried = this.rollUpRows.size;
        const smaller = this.rollUpRows.timedOut();
        this.logger.warn(
          `Activity roll-up of ${tried} endings cancelled by statement_timeout; ${smaller ? `retrying with ${this.rollUpRows.size}` : 'serving the buckets counted so far'}`,
        );
        if (!smaller) return;
      }
    }
  }
}
