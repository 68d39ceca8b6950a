import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { ShutdownError } from '../instance/abort-reasons';
import { AttemptExecutor } from '../attempt/attempt-executor.service';
import { abortGraceMs } from '../attempt/attempt-runner.service';
import { shutdownStep } from '../../shutdown-steps';
import { ClaimerService } from '../claim/claimer.service';
import { DueTimer } from '../wake/due-timer';
import { LeaseKeeper } from '../lease/lease-keeper.service';
import { NotificationListener } from '../wake/notification-listener.service';
import { WAKE_UP_PLAN, WakeUpPlan } from '../wake/wake-up-plan';
import { FOLLOWER_PROBE_DELAY_MS, RELAYED_WAKE_PAYLOAD, respondToWake, WakeLeadership } from '../wake/wake-leadership';
import { LeasedUnit } from '../instance/leased-units';
import { RunningSuspect, SuspectRunner } from './suspect-runner.service';
import { WorkerSlots } from '../instance/worker-slots';

/** After a failed claim (database away), wait this long before the next (ms). */
export const CLAIM_ERROR_PAUSE_MS = 500;

/**
 * How long shutdown waits, after aborting the handlers still running at
 * SHUTDOWN_TIMEOUT_MS, for their attempts to end (ms): the abort grace (a
 * handler that honours its signal returns within it; one that does not is
 * given up on) plus LEASE_MS, the longest the release of an action is
 * retried while the database does not answer (until its lease could expire:
 * AttemptFinisher). Past it the attempts still ending are left behind and
 * their leases expire on their own.
 *
 * @param leaseMs the LEASE_MS setting (ms).
 */
export function abortedAttemptsWaitMs(leaseMs: number): number {
  return abortGraceMs(leaseMs) + leaseMs;
}

/**
 * The worker loop of one instance: claims when it has free slots and
 * dispatches each claimed action to the AttemptExecutor.
 *
 * - Claims are requested by LISTEN/NOTIFY, by ended attempts, by a timer set
 *   for the next scheduled head (so a future `runAt` starts on time), and by a
 *   poll every WORKER_POLL_INTERVAL_MS (the safety net); behind a transaction
 *   pooler with no LISTEN connection, by a short poll instead (WakeUpPlan). Claim rounds never
 *   overlap: a request during one asks for one more round.
 * - A notification makes one instance claim, not all (WakeLeadership,
 *   respondToWake): the leader of this set of types, and instances already
 *   working; an idle one looks FOLLOWER_PROBE_DELAY_MS later with one probe.
 *   A leader without room relays the wake-up to all. While the LISTEN
 *   connection is up, the poll of an idle instance is that one probe.
 * - What a finishing statement takes for this worker (hand-offs, claims) is
 *   executed at once, without a claim of its own.
 * - Poison detection: each poll, each notification that a suspect head became
 *   claimable (021-suspect-notify.up.sql), a timer for the next scheduled
 *   suspect, and the end of each suspect's attempt let the SuspectRunner take
 *   one due suspect into one slot, beside other work.
 * - Shutdown: no new claims; running handlers get SHUTDOWN_TIMEOUT_MS, then
 *   are aborted and their actions released; every wait is bounded
 *   (abortedAttemptsWaitMs), so a database that stopped answering cannot hold it up.
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
  /** A non-leading instance's late look after a notification (one at a time). */
  private followerProbeTimer: NodeJS.Timeout | undefined;
  /** The leader owes a relay if this claim round runs out of room (the notification announced more than it could take). */
  private relayOwed = false;
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
    private readonly leadership: WakeLeadership,
  ) {}

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
    this.pollTimer = setInterval(() => this.onPoll(), this.settings.WORKER_POLL_INTERVAL_MS);
    this.listener.start({
      onWake: (payload) => this.onWakeNotice(payload),
      onSuspectDue: () => this.suspectMayBeDue(),
      onCancelRequested: (actionId) => this.leases.cancelRequested(actionId),
    });
    this.slots.onSlotFreed(() => this.requestClaim('slot'));
    if (this.wakeUp.warning) this.logger.warn(this.wakeUp.warning);
    if (this.wakeUp.shortPollMs !== null) this.shortPollTimer = setInterval(() => this.requestClaim('wake'), this.wakeUp.shortPollMs);
    this.logger.log(`Worker started: concurrency ${this.settings.WORKER_CONCURRENCY}, lease ${this.settings.LEASE_MS} ms`);
    this.onPoll();
  }

  /**
   * Stops the worker: no new claims, the LISTEN connection closed (at most
   * LISTEN_STOP_TIMEOUT_MS), running handlers given SHUTDOWN_TIMEOUT_MS, then
   * aborted and their actions released, waiting at most
   * {@link abortedAttemptsWaitMs} for that. Each wait is bounded: a database
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
    clearTimeout(this.followerProbeTimer);
    this.dueTimer.cancel();
    this.suspectDueTimer.cancel();
    this.logger.log(`Shutting down${signal ? ` (${signal})` : ''}: no new claims; ${this.executor.activeAttempts} running`);
    await this.listener.stop();
    if (!(await shutdownStep('worker: running handlers finishing', this.executor.whenIdle(), this.settings.SHUTDOWN_TIMEOUT_MS))) {
      this.logger.warn(`Shutdown timeout: aborting ${this.executor.activeAttempts} running handler(s) and releasing their actions`);
      this.leases.abortAll(() => new ShutdownError());
      const waitMs = abortedAttemptsWaitMs(this.settings.LEASE_MS);
      if (!(await shutdownStep('worker: aborted handlers stopping and their actions being released', this.executor.whenIdle(), waitMs))) {
        this.logger.warn(
          `Shutdown: ${this.executor.activeAttempts} attempt(s) still not ended ${waitMs} ms after the abort (a handler ignoring its signal, or a database not answering); leaving them, their leases expire`,
        );
      }
    }
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
      if (grant.slots === 0) return this.relayIfOwed();
      try {
        const { units, sentAt } = await this.claimer.claim(grant.slots);
        this.slots.settle(grant, units.length, grant.slots);
        this.lastClaimAt = Date.now();
        this.dispatch(units, sentAt);
        if (units.length === grant.slots) this.claimAgain = true;
        else {
          this.relayOwed = false;
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

  /** A wake-up notification (payload undefined: the LISTEN connection (re)connected). */
  private onWakeNotice(payload: string | undefined): void {
    if (!this.started || this.slots.isPaused('stopping')) return;
    const leads = this.leadership.leads;
    const response = respondToWake({ payload, leads, idle: this.slots.idle });
    if (response === 'probe-now') return void this.probe();
    if (response === 'probe-later') return this.probeLater();
    if (leads && payload !== undefined && payload !== RELAYED_WAKE_PAYLOAD) this.relayOwed = true;
    this.requestClaim('wake');
  }

  /** The leader had no room for what a notification announced: every instance should look. */
  private relayIfOwed(): void {
    if (!this.relayOwed) return;
    this.relayOwed = false;
    this.leadership.relay();
  }

  private probeLater(): void {
    if (this.followerProbeTimer !== undefined) return;
    const delay = FOLLOWER_PROBE_DELAY_MS * (1 + Math.random());
    this.followerProbeTimer = setTimeout(() => {
      this.followerProbeTimer = undefined;
      void this.probe();
    }, delay);
    this.followerProbeTimer.unref();
  }

  /**
   * The idle instance's look: one probe (which also takes a free leadership);
   * claims or runs a suspect only if it found one. Without a LISTEN
   * connection, or when the probe fails, claims as before (the claim reports
   * its own failure).
   */
  private async probe(): Promise<void> {
    let found: { ready: boolean; suspectReady: boolean } | null;
    try {
      found = await this.leadership.probe();
    } catch {
      found = null;
    }
    if (!this.started || this.slots.isPaused('stopping')) return;
    if (found === null) return this.pollByClaim();
    this.lastClaimAt = Date.now();
    if (found.suspectReady) this.suspectMayBeDue();
    // Work is there: look as the claiming poll does (it also hands a slot the suspect
    // runner held back for a suspect that is not there back to the claim, which a bare
    // claim request would not: with WORKER_CONCURRENCY 1 that held nothing at all).
    if (found.ready) this.pollByClaim();
  }

  private onPoll(): void {
    // An instance that is working claims as its slots free; one that is idle only probes.
    if (this.leadership.leads || (this.slots.idle && this.listener.connected)) return void this.probe();
    this.pollByClaim();
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
