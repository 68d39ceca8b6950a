import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { hotPathQuery, statementNaming } from '../../database/timed-query';
import { JOB_STOP_TIMEOUT_MS, shutdownStep } from '../../shutdown-steps';
import { LeaseKeeper } from './lease-keeper.service';
import { ReapedLeases } from './reaped-leases';
import { refusalGraceMs, unknownLeaseCutoffMs } from './reaper-timing';
import { isDatabaseRefusal } from './database-refusal';
import {
  GRACE_EXPIRED_LEASES_SQL,
  REAP_EXPIRED_LEASES_SQL,
  REAPED_ACTIONS_SQL,
  RELEASE_UNKNOWN_LEASES_SQL,
  UNKNOWN_LEASES_CUTOFF_SQL,
} from '../sql/lost-attempts.sql';
import { QueueEventSink } from '../../events/queue-event-sink';
import { publishReapedEnds, ReapedAction, reapedToReport } from './reaped-events';
import { WORKER_ID } from '../instance/worker-id.token';
import { WorkerMetrics } from '../instance/worker-metrics';

/**
 * Most leases reaped by one statement; the reaper loops while it finds a full
 * batch. Measured on this project's 2-core machine (2026-12-01; 2 000 expired
 * leases in 2 000 groups, reaped with batches of 100, 500 and 2 000, three
 * rounds): 100 costs 296-474 µs per action (a fixed cost per statement of
 * some 20 ms dominates), 500 costs 119-156 µs (47-62 ms per statement), 2 000
 * costs 159-245 µs and holds its rows and groups locked 159-245 ms per
 * statement, holding up the finishing statements of those groups that long.
 */
const REAP_BATCH = 500;

/**
 * Ends attempts whose lease expired (their worker died, stalled or lost the
 * database) every REAPER_INTERVAL_MS, on worker instances. The action runs
 * again at once (the statement wakes the workers), uncharged; lost twice in a
 * row it becomes a suspect, and a suspect lost again is charged
 * (src/database/sql/011-lost-attempts-in-parallel.up.sql); after a round that
 * reaped any, it publishes the count (ReapedLeases): this instance's worker,
 * subscribed, has its SuspectRunner ask for a suspect at once (the others
 * learn by the notification of 021-suspect-notify.up.sql). Each round also
 * releases this worker's unknown leases: granted by a statement whose answer
 * never arrived (012-unknown-leases.up.sql), so that they run again at once
 * instead of expiring as losses. An action a reaping ends for good (failed,
 * cancelled) is posted to the lifecycle events after the commit (reaped-events.ts).
 * Any number of instances may
 * reap at once (SKIP LOCKED); runs never overlap within one.
 *
 * After rounds the database refused (read-only, down: see
 * isDatabaseRefusal), the first round that gets through reaps nothing: it
 * gives the leases that expired meanwhile a grace of 2 x LEASE_MS +
 * REAPER_INTERVAL_MS (GRACE_EXPIRED_LEASES_SQL). Their owners could not renew
 * them for the database's sake, not the action's: a live owner releases each
 * uncharged as an unknown lease once it no longer counts it as held (at most
 * LEASE_MS after its deadline, LeaseKeeper.leaveToExpire), so a suspect is not
 * charged for a failover; a dead owner's lease expires again and is reaped as
 * a loss then, a grace later.
 */
@Injectable()
export class ReaperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReaperService.name);
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The database refused a round since the last one that got through: the next grants a grace first. */
  private refusedSince = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly metrics: WorkerMetrics,
    private readonly leases: LeaseKeeper,
    private readonly reaped: ReapedLeases,
    private readonly events: QueueEventSink,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED) return;
    const tick = () =>
      void this.reap().catch((error: Error) => {
        if (isDatabaseRefusal(error)) this.refusedSince = true;
        this.logger.warn(`Reaper failed (will retry): ${error.message}`);
      });
    this.timer = setInterval(tick, this.settings.REAPER_INTERVAL_MS);
    tick();
  }

  /**
   * Stops the timer and waits for a round in flight, at most
   * JOB_STOP_TIMEOUT_MS: its statements have no client-side timeout, so on a
   * database that stopped answering it would never end. A round left behind
   * is rolled back when the pool closes; the next round anywhere does its work.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    if (this.running) await shutdownStep('reaper: round in flight', this.running, JOB_STOP_TIMEOUT_MS, this.logger);
  }

  /**
   * Reaps every expired lease, then releases this worker's unknown leases. A
   * call while one is running joins it.
   * @returns how many leases were reaped.
   */
  reap(): Promise<number> {
    this.running ??= this.reapAll().finally(() => (this.running = null));
    return this.running;
  }

  private async reapAll(): Promise<number> {
    if (this.refusedSince) {
      const graceMs = refusalGraceMs(this.leases.leaseTiming.leaseMs, this.settings.REAPER_INTERVAL_MS);
      const { rows } = await this.pool.query<{ n: number }>(GRACE_EXPIRED_LEASES_SQL, [graceMs]);
      this.refusedSince = false;
      if (rows[0].n > 0)
        this.logger.warn(
          `The database refused writes: ${rows[0].n} lease(s) that expired meanwhile get ${graceMs} ms more, for their owners to release them uncharged`,
        );
      await this.releaseUnknownLeases();
      return 0;
    }
    let total = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ action_id: string; attempt: number; worker_id: string; status: string; charged: number }>(
        hotPathQuery(REAP_EXPIRED_LEASES_SQL, [REAP_BATCH], statementNaming(this.settings.DATABASE_POOLER)),
      );
      for (const r of rows) {
        const charge = r.charged > 0 ? `charged ${r.charged} attempt(s)` : 'not charged';
        this.logger.warn(`Lease expired: action ${r.action_id} attempt ${r.attempt} (worker ${r.worker_id}); now ${r.status}, ${charge}`);
      }
      total += rows.length;
      await this.report(rows);
      if (rows.length < REAP_BATCH) break;
    }
    if (total > 0) {
      this.metrics.leasesExpired(total);
      // A reaped action may be a suspect now: the worker of this instance (subscribed) asks at once, also with no LISTEN connection (behind a pooler).
      this.reaped.publish(total);
    }
    await this.releaseUnknownLeases();
    return total;
  }

  /**
   * Posts the lifecycle events of the attempts a committed reaping ended for
   * good (reaped-events.ts), reading their actions only when a listener waits
   * for them; a failed read loses those events (at most once), never the reaping.
   */
  private async report(rows: { action_id: string; attempt: number; status: string }[]): Promise<void> {
    const toReport = reapedToReport(this.events, rows);
    if (toReport.length === 0) return;
    try {
      const { rows: actions } = await this.pool.query<ReapedAction>(REAPED_ACTIONS_SQL, [toReport.map((r) => r.action_id)]);
      publishReapedEnds(this.events, toReport, actions);
    } catch (error) {
      this.logger.warn(`The lifecycle events of ${toReport.length} reaped action(s) were not sent: ${(error as Error).message}`);
    }
  }

  /**
   * Releases the leases this worker has in the database but does not hold.
   * The cutoff is read before the held leases are listed, and lies the
   * statement timeout plus LEASE_MS/3 (for a late timer) before it: any lease
   * granted before it was granted by a statement whose answer has been handled
   * or given up by then (012-unknown-leases.up.sql).
   */
  private async releaseUnknownLeases(): Promise<void> {
    const timing = this.leases.leaseTiming;
    const naming = statementNaming(this.settings.DATABASE_POOLER);
    const { rows: clock } = await this.pool.query<{ cutoff: string }>(hotPathQuery(UNKNOWN_LEASES_CUTOFF_SQL, [unknownLeaseCutoffMs(timing)], naming));
    const { rows } = await this.pool.query<{ action_id: string; attempt: number }>(
      hotPathQuery(RELEASE_UNKNOWN_LEASES_SQL, [this.workerId, this.leases.heldActionIds(), clock[0].cutoff], naming),
    );
    for (const r of rows) {
      this.logger.warn(`Released action ${r.action_id} attempt ${r.attempt}: leased to this worker by a statement whose answer never arrived (not charged)`);
    }
  }
}
