import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Client } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { DATABASE_URL } from '../../database/database-url.token';
import { abandonClient, dedicatedClient } from '../../database/dedicated-connection';
import { QUEUE_PLACEMENT } from '../../database/queue-placement.token';
import { pinSearchPath, QueuePlacement } from '../../database/queue-schema';
import { statementNaming, timedQuery } from '../../database/timed-query';
import { CancelRequestedError, LeaseExpiringError, LeaseLostError } from '../instance/abort-reasons';
import { WatchdogSharedState } from '../containment/watchdog-shared-state';
import { HandlerStop } from '../instance/handler-stop';
import { heldUntilSurelyExpired, isDueForFencing, renewedDeadline } from './lease-deadline';
import { LeaseTiming } from '../instance/lease-timing';
import { LEASE_TIMING } from '../instance/lease-timing.token';
import { LoopStallMeter } from './loop-stall-meter';
import { monotonicNow } from '../instance/monotonic-clock';
import { EXTEND_LEASES_SQL } from '../sql/extend-leases.sql';
import { WORKER_ID } from '../instance/worker-id.token';
import { WorkerMetrics } from '../instance/worker-metrics';
import { WorkerSlots } from '../instance/worker-slots';

/**
 * Heartbeat failures in a row are logged at the first, then at every tenth:
 * at the default LEASE_MS a beat is due every 10 s, so a database outage of
 * minutes logs a line about every 100 s instead of three per lease.
 * `action_queue_heartbeat_failures_total` counts every one.
 */
const FAILED_BEATS_PER_WARNING = 10;

/** How often the LoopStallMeter ticks (ms): fine enough for the heartbeat interval of the shortest lease. */
const STALL_TICK_MS = 20;

/** A lease this worker holds: one running attempt. */
export interface HeldLease {
  actionId: string;
  attempt: number;
  /** When the lease may expire elsewhere at the earliest (monotonic ms, see lease-timing.ts). */
  deadline: number;
  /** Tells the handler to stop, with a reason from abort-reasons.ts. */
  handlerStop: HandlerStop;
  /** The attempt has ended and is being recorded: keep the lease alive, abort nothing. */
  ended: boolean;
}

/**
 * Keeps this worker's leases alive and fences the worker when it cannot.
 *
 * - Heartbeat every LEASE_MS/3 on a connection of its own (a busy pool never
 *   delays it), never two at once, each with a client-side timeout
 *   (lease-timing.ts). A beat extends every held lease; an action whose lease
 *   is gone has its handler aborted (LeaseLostError); one whose cancellation
 *   was requested too (CancelRequestedError). A cancel notification for an
 *   action held here (013-cancel-notify.up.sql) runs a beat at once, so a
 *   cancel reaches the handler within a round trip, not LEASE_MS/3.
 * - Self-fencing: each lease has a local deadline on the monotonic clock,
 *   renewed by each successful beat. When a deadline comes within
 *   LEASE_MS/4, the handler's signal is aborted (LeaseExpiringError) and the
 *   worker takes no new work until a beat succeeds again, so a handler that
 *   honours its signal stops before another worker can take its action.
 *   (A stalled event loop runs none of this: see EventLoopWatchdog.) When
 *   this instance's event loop stalled for at least a heartbeat interval
 *   since the lease's last renewal (LoopStallMeter), the stall explains the
 *   failed renewals: the error says so, and the attempt is left to expire as
 *   a loss with its instance instead of being released (AttemptRunner), so
 *   an action that stalls its instance is counted by poison detection.
 */
@Injectable()
export class LeaseKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LeaseKeeper.name);
  private readonly leases = new Set<HeldLease>();
  /** Leases left to expire, and until when (monotonic ms) they count as held. */
  private readonly expiring = new Map<HeldLease, number>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private fenceTimer: NodeJS.Timeout | undefined;
  private client: Client | null = null;
  private beating = false;
  private beatAgain = false;
  private failedBeats = 0;
  private readonly stallMeter: LoopStallMeter;

  constructor(
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(QUEUE_PLACEMENT) private readonly placement: QueuePlacement,
    private readonly slots: WorkerSlots,
    private readonly metrics: WorkerMetrics,
    private readonly watchdogState: WatchdogSharedState,
    @Inject(LEASE_TIMING) private readonly timing: LeaseTiming,
  ) {
    this.stallMeter = new LoopStallMeter(Math.min(STALL_TICK_MS, timing.fenceCheckEveryMs), 2 * timing.leaseMs);
  }

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED) return;
    this.heartbeatTimer = setInterval(() => void this.beat(), this.timing.heartbeatEveryMs);
    this.fenceTimer = setInterval(() => this.fenceExpiring(), this.timing.fenceCheckEveryMs);
  }

  /** Runs after every beforeApplicationShutdown hook, so leases stay alive while the worker drains. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    clearInterval(this.fenceTimer);
    this.stallMeter.stop();
    this.dropClient();
  }

  /** Timing derived from LEASE_MS. */
  get leaseTiming(): LeaseTiming {
    return this.timing;
  }

  /** Starts keeping `lease` alive until {@link untrack}. */
  track(lease: HeldLease): void {
    // Only while leases are held: an idle instance keeps no timer awake for it.
    if (this.leases.size === 0) this.stallMeter.start();
    this.leases.add(lease);
    this.watchdogState.lowerEarliestDeadline(lease.deadline);
  }

  /**
   * Ids of the actions whose leases this worker holds now (running, or being
   * recorded), and of those it leaves to expire until they surely have (see
   * {@link leaveToExpire}).
   */
  heldActionIds(): string[] {
    const now = monotonicNow();
    for (const [lease, until] of this.expiring) if (until <= now) this.expiring.delete(lease);
    return [...this.leases, ...this.expiring.keys()].map((lease) => lease.actionId);
  }

  /**
   * Counts an untracked lease as held until it has surely expired in the
   * database (its deadline plus LEASE_MS): its attempt recorded nothing and
   * leaves it to expire (a cancel its handler ignored, a suspect that lost
   * its lease), which must not be released early as unknown.
   */
  leaveToExpire(lease: HeldLease): void {
    this.expiring.set(lease, heldUntilSurelyExpired(lease.deadline, this.timing.leaseMs));
  }

  untrack(lease: HeldLease): void {
    this.leases.delete(lease);
    if (this.leases.size === 0) {
      this.watchdogState.setEarliestDeadline(Infinity);
      this.stallMeter.stop();
    }
  }

  /** Aborts every held lease's handler that has not ended, with `reason`. */
  abortAll(reason: (lease: HeldLease) => Error): void {
    for (const lease of this.leases) if (!lease.ended && !lease.handlerStop.stopped) lease.handlerStop.stop(reason(lease));
  }

  /**
   * Cancellation of `actionId` was requested (a notification): when this
   * worker holds it, beats now (or right after the beat in flight), which
   * reads the request and aborts the handler.
   */
  cancelRequested(actionId: string): void {
    for (const lease of this.leases) {
      if (lease.actionId !== actionId || lease.ended || lease.handlerStop.stopped) continue;
      if (this.beating) this.beatAgain = true;
      else void this.beat();
      return;
    }
  }

  private async beat(): Promise<void> {
    if (this.beating || (this.leases.size === 0 && !this.slots.isPaused('fenced'))) return;
    this.beating = true;
    const held = [...this.leases];
    const sentAt = monotonicNow();
    try {
      const client = await this.connection();
      const values = [this.workerId, held.map((h) => h.actionId), held.map((h) => h.attempt), this.timing.leaseMs];
      const { rows } = await client.query<{ id: string; attempt: number; extended: boolean; cancel_requested: boolean }>(
        timedQuery(EXTEND_LEASES_SQL, values, this.timing.statementTimeoutMs, statementNaming(this.settings.DATABASE_POOLER)),
      );
      this.afterBeat(held, new Map(rows.map((r) => [`${r.id}:${r.attempt}`, r])), sentAt);
    } catch (error) {
      this.dropClient();
      this.failedBeats++;
      this.metrics.heartbeatFailed();
      if (this.failedBeats === 1 || this.failedBeats % FAILED_BEATS_PER_WARNING === 0) {
        this.logger.warn(`Heartbeat failed ${this.failedBeats} time(s) in a row (leases not extended): ${(error as Error).message}`);
      }
    } finally {
      this.beating = false;
    }
    if (this.beatAgain) {
      this.beatAgain = false;
      void this.beat();
    }
  }

  private afterBeat(held: HeldLease[], answer: Map<string, { extended: boolean; cancel_requested: boolean }>, sentAt: number): void {
    if (this.failedBeats > 0) this.logger.log(`Heartbeat restored after ${this.failedBeats} failure(s)`);
    this.failedBeats = 0;
    if (this.slots.isPaused('fenced')) {
      this.slots.resume('fenced');
      this.slots.wake();
    }
    let earliest = Infinity;
    for (const lease of this.leases) {
      if (answer.get(`${lease.actionId}:${lease.attempt}`)?.extended) lease.deadline = renewedDeadline(lease.deadline, sentAt, this.timing.leaseMs);
      earliest = Math.min(earliest, lease.deadline);
    }
    // Raised only here, where every deadline is known; a new lease lowers it at once (track).
    this.watchdogState.setEarliestDeadline(earliest);
    for (const lease of held) {
      const row = answer.get(`${lease.actionId}:${lease.attempt}`);
      // (extended false: still ours but its row was busy; the next beat extends it.)
      if (lease.ended || lease.handlerStop.stopped) continue;
      if (!row) {
        this.logger.warn(`Lease lost for action ${lease.actionId} attempt ${lease.attempt}; aborting its handler`);
        lease.handlerStop.stop(new LeaseLostError(lease.actionId, lease.attempt));
      } else if (row.cancel_requested) {
        this.logger.log(`Cancellation requested for action ${lease.actionId}; aborting its handler`);
        lease.handlerStop.stop(new CancelRequestedError(lease.actionId));
      }
    }
  }

  /** Aborts the handlers whose lease could expire soon, and stops taking work. */
  private fenceExpiring(): void {
    const now = monotonicNow();
    let fenced = 0;
    for (const lease of this.leases) {
      if (lease.ended || lease.handlerStop.stopped || !isDueForFencing(lease.deadline, now, this.timing.fenceBeforeMs)) continue;
      // Since the lease was last renewed (its deadline is that beat's send time plus a lease).
      const stalledMs = this.stallMeter.stalledMsSince(lease.deadline - this.timing.leaseMs);
      const explainedByStall = stalledMs >= this.timing.heartbeatEveryMs ? stalledMs : null;
      lease.handlerStop.stop(new LeaseExpiringError(lease.actionId, lease.attempt, lease.deadline - now, explainedByStall));
      fenced++;
    }
    if (fenced === 0) return;
    this.metrics.selfFenced(fenced);
    if (!this.slots.isPaused('fenced')) {
      this.logger.warn(
        `Self-fencing: ${fenced} lease(s) could not be renewed in time; their handlers are aborted and no new work is taken until the database answers`,
      );
      this.slots.pause('fenced');
    }
  }

  private async connection(): Promise<Client> {
    if (this.client) return this.client;
    const client = dedicatedClient(this.databaseUrl, 'heartbeat', this.timing.statementTimeoutMs);
    client.on('error', () => {
      if (this.client === client) this.dropClient();
    });
    this.client = client;
    try {
      await client.connect();
      await pinSearchPath(client, this.placement);
    } catch (error) {
      this.dropClient();
      throw error;
    }
    return client;
  }

  /** Forgets the heartbeat connection without waiting for it (it may hang). */
  private dropClient(): void {
    const client = this.client;
    this.client = null;
    if (client) abandonClient(client);
  }
}
