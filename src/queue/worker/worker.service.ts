import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { AttemptExecutor } from '../attempt/attempt-executor.service';
import { ClaimerService } from '../claim/claimer.service';
import { DueTimer } from '../wake/due-timer';
import { LeaseKeeper } from '../lease/lease-keeper.service';
import { NotificationListener } from '../wake/notification-listener.service';
import { WAKE_UP_PLAN, WakeUpPlan } from '../wake/wake-up-plan';
import { WakeLeadership } from '../wake/wake-leadership';
import { LeasedUnit } from '../instance/leased-units';
import { WorkerSlots } from '../instance/worker-slots';
import { ReapedLeases } from '../lease/reaped-leases';
import { drainAttempts } from './attempts-drain';
import { RunningSuspect, SuspectRunner } from './suspect-runner.service';
import { WakeResponse } from './wake-response';

/** After a failed claim (database away), wait this long before the next (ms). */
export const CLAIM_ERROR_PAUSE_MS = 500;

/**
 * The worker loop of one instance: claims when it has free slots and
 * dispatches each claimed action to the AttemptExecutor.
 *
 * - Claims are requested by LISTEN/NOTIFY, by ended attempts, by a timer set
 *   for the next scheduled head (so a future `runAt` starts on time), and by a
 *   poll every WORKER_POLL_INTERVAL_MS (the safety net); behind a transaction
 *   pooler with no LISTEN connection, by a short poll instead (WakeUpPlan). Claim rounds never
 *   overlap: a request during one asks for one more round.
 * - A notification makes one instance claim, not all; an idle instance's poll
 *   is one probe while the LISTEN connection is up (WakeResponse).
 * - What a finishing statement takes for this worker (hand-offs, claims) is
 *   executed at once, without a claim of its own.
 * - Poison detection: each poll, each notification that a suspect head became
 *   claimable (021-suspect-notify.up.sql), a timer for the next scheduled
 *   suspect, each reaper round of this instance that reaped leases
 *   (ReapedLeases), and the end of each suspect's attempt let the SuspectRunner take
 *   one due suspect into one slot, beside other work.
 * - Shutdown: no new claims; running handlers get SHUTDOWN_TIMEOUT_MS, then
 *   are aborted and their actions released; every wait is bounded
 *   (drainAttempts), so a database that stopped answering cannot hold it up.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerService.name);
  private claiming = false;
  private claimAgain = false;
  private started = false;
  private pausedUntil = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private shortPollTimer: NodeJS.Timeout | undefined;
  private readonly dueTimer = new DueTimer(() => this.requestClaim('wake'));
  /** For the next scheduled suspect: only the SuspectRunner claims one. */
  private readonly suspectDueTimer = new DueTimer(() => this.suspectMayBeDue());
  private readonly wakeResponse: WakeResponse;
  private unsubscribeReaped: (() => void) | undefined;
  /** Last time the loop ran a claim round or had no room to (ms since epoch), for health. */
  lastClaimAt = 0;

  constructor(
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    private readonly slots: WorkerSlots,
    private readonly claimer: ClaimerService,
    private readonly executor: AttemptExecutor,
    private readonly leases: LeaseKeeper,
    private readonly listener: NotificationListener,
    private readonly suspects: SuspectRunner,
    @Inject(WAKE_UP_PLAN) private readonly wakeUp: WakeUpPlan,
    leadership: WakeLeadership,
    private readonly reaped: ReapedLeases,
  ) {
    this.wakeResponse = new WakeResponse(leadership, slots, listener, {
      running: () => this.started && !this.slots.isPaused('stopping'),
      requestClaim: () => this.requestClaim('wake'),
      pollByClaim: () => this.pollByClaim(),
      suspectMayBeDue: () => this.suspectMayBeDue(),
      looked: () => (this.lastClaimAt = Date.now()),
    });
  }

  /** Whether the worker loop runs in this instance. */
  get enabled(): boolean {
    return this.settings.WORKER_ENABLED;
  }

  /** Handlers running now (stuck ones included). */
  get busySlots(): number {
    return this.slots.occupied;
  }

  /** The suspect (quarantined action) running in this instance's suspect slot now, or null. */
  get runningSuspect(): RunningSuspect | null {
    return this.suspects.runningSuspect;
  }

  onApplicationBootstrap(): void {
    // Shutdown may begin before start-up ends (a signal while the app starts): then nothing starts.
    if (!this.settings.WORKER_ENABLED || this.slots.isPaused('stopping')) return;
    this.started = true;
    this.pollTimer = setInterval(() => this.wakeResponse.onPoll(), this.settings.WORKER_POLL_INTERVAL_MS);
    this.listener.start({
      onWake: (payload) => this.wakeResponse.onNotice(payload),
      onSuspectDue: () => this.suspectMayBeDue(),
      onCancelRequested: (actionId) => this.leases.cancelRequested(actionId),
    });
    this.slots.onSlotFreed(() => this.requestClaim('slot'));
    // A reaped action may be a suspect now: asked at once, also with no LISTEN connection (behind a pooler).
    this.unsubscribeReaped = this.reaped.subscribe(() => this.suspectMayBeDue());
    if (this.wakeUp.warning) this.logger.warn(this.wakeUp.warning);
    if (this.wakeUp.shortPollMs !== null) this.shortPollTimer = setInterval(() => this.requestClaim('wake'), this.wakeUp.shortPollMs);
    this.logger.log(`Worker started: concurrency ${this.settings.WORKER_CONCURRENCY}, lease ${this.settings.LEASE_MS} ms`);
    this.wakeResponse.onPoll();
  }

  /**
   * Stops the worker: no new claims, the LISTEN connection closed (at most
   * LISTEN_STOP_TIMEOUT_MS), running handlers given SHUTDOWN_TIMEOUT_MS, then
   * aborted and their actions released, waiting at most
   * abortedAttemptsWaitMs for that (drainAttempts). Each wait is bounded: a database
   * that stopped answering, or a handler that ignores its signal, delays the
   * shutdown by those bounds at most. Also before start-up has ended: the
   * worker then never starts.
   *
   * @param signal the signal that started the shutdown, for the log.
   */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    if (this.slots.isPaused('stopping')) return;
    this.slots.pause('stopping');
    if (!this.started) return;
    clearInterval(this.pollTimer);
    clearInterval(this.shortPollTimer);
    this.wakeResponse.stop();
    this.unsubscribeReaped?.();
    this.dueTimer.cancel();
    this.suspectDueTimer.cancel();
    this.logger.log(`Shutting down${signal ? ` (${signal})` : ''}: no new claims; ${this.executor.activeAttempts} running`);
    await this.listener.stop();
    await drainAttempts(this.executor, this.leases, { shutdownTimeoutMs: this.settings.SHUTDOWN_TIMEOUT_MS, leaseMs: this.settings.LEASE_MS }, this.logger);
    this.logger.log('Worker stopped');
  }

  /**
   * Asks for a claim round; cheap to call often.
   * @param reason `wake`: something may have become claimable (a notification,
   *   the poll, a due time); `slot`: an attempt ended and freed a slot, which is
   *   only worth a claim if the last claim did not find the queue empty.
   */
  requestClaim(reason: 'wake' | 'slot'): void {
    if (!this.started || this.slots.isPaused('stopping')) return;
    if (reason === 'wake') this.slots.wake();
    this.lastClaimAt = Date.now();
    if ((reason === 'slot' && this.slots.idle) || Date.now() < this.pausedUntil) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    void this.claimRounds().finally(() => (this.claiming = false));
  }

  private async claimRounds(): Promise<void> {
    do {
      this.claimAgain = false;
      const grant = this.slots.reserve();
      if (grant.slots === 0) return this.wakeResponse.relayIfOwed();
      try {
        const { units, sentAt } = await this.claimer.claim(grant.slots);
        this.slots.settle(grant, units.length, grant.slots);
        this.lastClaimAt = Date.now();
        this.dispatch(units, sentAt);
        if (units.length === grant.slots) this.claimAgain = true;
        else {
          this.wakeResponse.forgetRelay();
          // Slots are left: a suspect that became due while this round held them (its timer, its notification) takes one now.
          this.runSuspect();
          await this.armDueTimer();
        }
      } catch (error) {
        this.slots.settle(grant, 0, null);
        this.logger.warn(`Claim failed (will retry): ${(error as Error).message}`);
        // Wake-ups during the pause are dropped; retry after it, so a long poll interval does not leave work waiting.
        this.pausedUntil = Date.now() + CLAIM_ERROR_PAUSE_MS;
        setTimeout(() => this.requestClaim('wake'), CLAIM_ERROR_PAUSE_MS + 10).unref();
        return;
      }
    } while (this.claimAgain);
  }

  /** Executes leased units (an action, or an ordered chunk), then what each one's finishing statement takes next. */
  private dispatch(units: LeasedUnit[], leasedAt: number): void {
    for (const unit of units) {
      // A chunk of one runs as one action: a chunk handler's `handle` is handleChunk of one.
      const execution = unit.length === 1 ? this.executor.execute(unit[0], leasedAt) : this.executor.executeChunk(unit, leasedAt);
      void execution.then((next) => {
        if (next.retryInMs !== undefined) this.dueTimer.wakeIn(next.retryInMs);
        this.dispatch(next.next, next.leasedAt);
        // A freed slot goes to a due suspect first: on a saturated instance the claim round would always win it.
        this.runSuspect();
        this.requestClaim('slot');
      });
    }
  }

  private pollByClaim(): void {
    this.suspects.markMaybeDue();
    // First: a claim round reserves every free slot while it runs.
    this.runSuspect();
    this.requestClaim('wake');
  }

  /**
   * A suspect head became claimable (a notification, its due time, a reaping
   * on this instance): the SuspectRunner asks now, not at the next poll. Cheap:
   * one claim statement when a slot is free and no suspect runs here.
   */
  suspectMayBeDue(): void {
    if (!this.started || this.slots.isPaused('stopping')) return;
    this.suspects.markMaybeDue();
    this.runSuspect();
  }

  /** Lets the SuspectRunner take a due suspect; when it ran one, dispatches what followed and looks for the next. */
  private runSuspect(): void {
    if (this.slots.isPaused()) return;
    const run = this.suspects.runOne();
    if (!run) return;
    void run.then((next) => {
      // None was due: a claim round meanwhile may have found no room for the slot the suspect's claim held.
      if (!next) return this.requestClaim('wake');
      if (next.retryInMs !== undefined) this.dueTimer.wakeIn(next.retryInMs);
      this.dispatch(next.next, next.leasedAt);
      this.requestClaim('slot');
      this.runSuspect();
    });
  }

  /** After a claim that found less than it asked: wake when the next scheduled head comes due. */
  private async armDueTimer(): Promise<void> {
    try {
      const { waitMs, suspectWaitMs } = await this.claimer.nextDue();
      if (waitMs !== null) this.dueTimer.wakeIn(waitMs + 1);
      if (suspectWaitMs !== null) this.suspectDueTimer.wakeIn(suspectWaitMs + 1);
    } catch {
      // The poll is the safety net.
    }
  }
}
