import { FOLLOWER_PROBE_DELAY_MS, RELAYED_WAKE_PAYLOAD, respondToWake, WakeLeadership } from '../wake/wake-leadership';
import { NotificationListener } from '../wake/notification-listener.service';
import { WorkerSlots } from '../instance/worker-slots';

/** What the WakeResponse asks of the worker loop it serves. */
export interface WakeResponseLoop {
  /** Whether the loop runs (started, not stopping): otherwise notices and probes are dropped. */
  running(): boolean;
  /** Asks for a claim round because something may have become claimable. */
  requestClaim(): void;
  /** Looks as the claiming poll does: a due suspect first, then a claim round. */
  pollByClaim(): void;
  /** A suspect head may be claimable now. */
  suspectMayBeDue(): void;
  /** The loop looked for work now (for health's last-claim time). */
  looked(): void;
}

/**
 * How one instance answers a wake-up notification and its poll, so that a
 * notification makes one instance claim, not all (WakeLeadership,
 * respondToWake): the leader of this set of types and instances already
 * working claim; an idle one looks FOLLOWER_PROBE_DELAY_MS later with one
 * probe, and claims only if the probe found work. A leader whose claim round
 * ran out of room for what a notification announced relays the wake-up to
 * all ({@link relayIfOwed}). While the LISTEN connection is up, the poll of an
 * idle instance is that one probe.
 */
export class WakeResponse {
  /** A non-leading instance's late look after a notification (one at a time). */
  private followerProbeTimer: NodeJS.Timeout | undefined;
  /** The leader owes a relay if this claim round runs out of room (the notification announced more than it could take). */
  private relayOwed = false;

  constructor(
    private readonly leadership: WakeLeadership,
    private readonly slots: WorkerSlots,
    private readonly listener: NotificationListener,
    private readonly loop: WakeResponseLoop,
  ) {}

  /** A wake-up notification (payload undefined: the LISTEN connection (re)connected). */
  onNotice(payload: string | undefined): void {
    if (!this.loop.running()) return;
    const leads = this.leadership.leads;
    const response = respondToWake({ payload, leads, idle: this.slots.idle });
    if (response === 'probe-now') return void this.probe();
    if (response === 'probe-later') return this.probeLater();
    if (leads && payload !== undefined && payload !== RELAYED_WAKE_PAYLOAD) this.relayOwed = true;
    this.loop.requestClaim();
  }

  /** The poll: an instance that is working claims as its slots free; one that is idle only probes. */
  onPoll(): void {
    if (this.leadership.leads || (this.slots.idle && this.listener.connected)) return void this.probe();
    this.loop.pollByClaim();
  }

  /** The leader had no room for what a notification announced: every instance should look. */
  relayIfOwed(): void {
    if (!this.relayOwed) return;
    this.relayOwed = false;
    this.leadership.relay();
  }

  /** A claim round had room left: what a notification announced was all taken, no relay is owed. */
  forgetRelay(): void {
    this.relayOwed = false;
  }

  /** Cancels a pending follower probe (shutdown). */
  stop(): void {
    clearTimeout(this.followerProbeTimer);
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
    if (!this.loop.running()) return;
    if (found === null) return this.loop.pollByClaim();
    this.loop.looked();
    if (found.suspectReady) this.loop.suspectMayBeDue();
    // Work is there: look as the claiming poll does (it also hands a slot the suspect
    // runner held back for a suspect that is not there back to the claim, which a bare
    // claim request would not: with WORKER_CONCURRENCY 1 that held nothing at all).
    if (found.ready) this.loop.pollByClaim();
  }
}
