import { ACTION_STATUSES, ActionStatus } from '../../vocabulary';
import { EXACT_STATUS_COUNTS_SQL, QUEUE_STATS_SQL } from '../sql/queue-stats.sql';

/**
 * Up to this size (bytes) the `actions` table is counted row by row, so every
 * count is exact; one sequential scan of 8 MB takes a few milliseconds. Beyond
 * it, counts that would walk the finished history are estimates.
 */
export const QUEUE_STATS_EXACT_MAX_BYTES = 8 * 1024 * 1024;

/** Failed and cancelled actions are counted exactly up to this many; beyond, estimated. */
export const QUEUE_STATS_COUNT_CAP = 10_000;

/**
 * Queue-wide figures shared by `GET /stats` and the `/metrics` gauges.
 * @publicApi
 */
export interface QueueStats {
  /** Actions by status. Those named in `estimated` are PostgreSQL's estimates. */
  byStatus: Record<ActionStatus, number>;
  /** Statuses whose count is an estimate (empty while the table is small). */
  estimated: ActionStatus[];
  /**
   * Pending actions split into states that sum to `byStatus.pending`: `due`
   * heads (claimable now), `scheduled` heads (runAt in the future), `paused`
   * heads (held back by a pause of the queue, their type or their group,
   * whatever their runAt), `waitingForRateLimit` heads (not paused, held back
   * until their type's or group's bucket has a token), `behindHead` (waiting
   * for an earlier action of their group).
   */
  pendingBreakdown: { due: number; scheduled: number; paused: number; waitingForRateLimit: number; behindHead: number };
  /** Seconds the oldest due, claimable action (not paused, not waiting for a token) has waited since it became due; null when none. */
  oldestPendingAgeSeconds: number | null;
  /** Groups held by a failed head under the `block` policy. */
  blockedGroups: number;
  /** What is paused now (docs/flow-control.md): the whole queue, how many action types, how many groups. */
  paused: { queue: boolean; types: number; groups: number };
}

/** Runs one SQL statement with parameters and returns its rows. */
export type RunQuery = (sql: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

interface StatsRow {
  table_bytes: number;
  live_rows: number;
  pending: number;
  running: number;
  failed_capped: number;
  cancelled_capped: number;
  failed_estimate: number;
  cancelled_estimate: number;
  due_heads: number;
  scheduled_heads: number;
  paused_due: number;
  paused_scheduled: number;
  rate_due: number;
  rate_scheduled: number;
  oldest_due_age_s: number | null;
  blocked_groups: number;
  paused_queue: boolean;
  paused_types: number;
  paused_groups: number;
}

/**
 * Reads the queue-wide figures in a time independent of how many finished
 * actions are kept: one statement over partial indexes and statistics, plus a
 * count of every row only while the table is at most
 * {@link QUEUE_STATS_EXACT_MAX_BYTES}. Beyond that, `done` is estimated
 * (PostgreSQL's live row count minus the other statuses) and `failed` /
 * `cancelled` are exact up to {@link QUEUE_STATS_COUNT_CAP}, then estimated
 * from their partial index's statistics; `estimated` lists which.
 *
 * @param run executes SQL (a DataSource's or a pool's query).
 * @throws whatever `run` throws (database unreachable, timeout).
 */
export async function readQueueStats(run: RunQuery): Promise<QueueStats> {
  const [row] = (await run(QUEUE_STATS_SQL, [QUEUE_STATS_COUNT_CAP + 1])) as unknown as StatsRow[];
  const byStatus: Record<ActionStatus, number> = { pending: row.pending, running: row.running, done: 0, failed: 0, cancelled: 0 };
  const estimated: ActionStatus[] = [];
  if (row.table_bytes <= QUEUE_STATS_EXACT_MAX_BYTES) {
    const counts = (await run(EXACT_STATUS_COUNTS_SQL, [])) as { status: ActionStatus; n: number }[];
    for (const status of ACTION_STATUSES) byStatus[status] = counts.find((c) => c.status === status)?.n ?? 0;
  } else {
    const capped = (status: 'failed' | 'cancelled', exact: number, estimate: number): number => {
      if (exact <= QUEUE_STATS_COUNT_CAP) return exact;
      estimated.push(status);
      return Math.max(QUEUE_STATS_COUNT_CAP + 1, Math.round(estimate));
    };
    byStatus.failed = capped('failed', row.failed_capped, row.failed_estimate);
    byStatus.cancelled = capped('cancelled', row.cancelled_capped, row.cancelled_estimate);
    byStatus.done = Math.max(0, Math.round(row.live_rows) - byStatus.pending - byStatus.running - byStatus.failed - byStatus.cancelled);
    estimated.push('done');
  }
  const pendingHeads = row.due_heads + row.scheduled_heads;
  // Paused and rate-limited heads are taken out of the due / scheduled heads they were counted in.
  // While the queue is paused every head is (the statement does not walk them to say so).
  const pausedDue = row.paused_queue ? row.due_heads : row.paused_due;
  const pausedScheduled = row.paused_queue ? row.scheduled_heads : row.paused_scheduled;
  const pendingBreakdown = {
    due: Math.max(0, row.due_heads - pausedDue - row.rate_due),
    scheduled: Math.max(0, row.scheduled_heads - pausedScheduled - row.rate_scheduled),
    paused: pausedDue + pausedScheduled,
    waitingForRateLimit: row.rate_due + row.rate_scheduled,
    behindHead: Math.max(0, byStatus.pending - pendingHeads),
  };
  return {
    byStatus,
    estimated: ACTION_STATUSES.filter((s) => estimated.includes(s)),
    pendingBreakdown,
    oldestPendingAgeSeconds: row.oldest_due_age_s === null ? null : Math.max(0, row.oldest_due_age_s),
    blockedGroups: row.blocked_groups,
    paused: { queue: row.paused_queue, types: row.paused_types, groups: row.paused_groups },
  };
}
