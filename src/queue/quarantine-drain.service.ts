import { Injectable, Logger } from '@nestjs/common';
import { NotAloneError } from './abort-reasons';
import { AttemptExecutor, Continuation } from './attempt-executor.service';
import { Claimed, ClaimerService } from './claimer.service';
import { LeasedActionRow } from './sql/leased-action.sql';
import { WorkerSlots } from './worker-slots';

/** Longest a worker runs quarantined actions alone before it takes normal work again (ms). */
const QUARANTINE_ROUND_MS = 2_000;
/**
 * How long a due quarantined action waits for an idle instance (one running
 * nothing takes it on its next poll) before a busy instance takes it and
 * drains for it (ms). Either way one instance drains, never the fleet.
 */
export const QUARANTINE_PATIENCE_MS = 5_000;

/**
 * Poison detection, the worker's side: runs quarantined actions (their last
 * attempt was lost with its instance, cause unknown) each alone in its
 * instance, so the one that kills an instance again is known to be the
 * culprit (src/database/sql/008-lost-attempts.up.sql charges it).
 *
 * An instance that runs nothing takes a due quarantined action at once; a
 * busy one only after it waited QUARANTINE_PATIENCE_MS with nobody idle. The
 * action is leased first (so only this instance drains for it; the
 * LeaseKeeper keeps the lease meanwhile), the worker takes no new work, and
 * the handler starts once every other handler here has returned. A stuck
 * handler (one that ignored its abort) may never return: then the action is
 * released, uncharged and still quarantined, and the worker resumes.
 */
@Injectable()
export class QuarantineDrain {
  private readonly logger = new Logger(QuarantineDrain.name);
  /** The action leased and waiting to be alone, and how to let it start (null) or give it up (an Error). */
  private held: { actionId: string; decide: (reason: Error | null) => void } | null = null;

  constructor(
    private readonly slots: WorkerSlots,
    private readonly claimer: ClaimerService,
    private readonly executor: AttemptExecutor,
  ) {}

  /**
   * Whether this instance should drain now: a quarantined head is due and
   * this instance is idle, or it has waited QUARANTINE_PATIENCE_MS and no
   * handler here is stuck. Pauses the worker ('quarantine') when it says yes.
   * @throws the driver's error when the database cannot be asked.
   */
  async shouldDrain(): Promise<boolean> {
    const waitingMs = await this.claimer.quarantinedWaitingMs();
    if (waitingMs === null || this.slots.isPaused()) return false;
    const idle = this.slots.occupied === 0;
    if (!idle && (waitingMs < QUARANTINE_PATIENCE_MS || this.slots.stuck > 0)) return false;
    this.slots.pause('quarantine');
    return true;
  }

  /**
   * After {@link shouldDrain} said yes: runs due quarantined actions one at a
   * time, each alone, for up to QUARANTINE_ROUND_MS (one drain serves many:
   * most quarantined actions are innocent and quick), then resumes the worker.
   * @returns what each attempt's finishing statement left to do; never rejects.
   */
  async drain(): Promise<Continuation[]> {
    const roundEnds = Date.now() + QUARANTINE_ROUND_MS;
    const continuations: Continuation[] = [];
    while (Date.now() < roundEnds && this.slots.isPaused('quarantine')) {
      const grant = this.slots.reserveQuarantined();
      if (!grant) break; // stopping or fenced meanwhile
      let claimed: Claimed;
      try {
        claimed = await this.claimer.claimQuarantined();
      } catch (error) {
        this.slots.settle(grant, 0, null);
        this.logger.warn(`Claim of a quarantined action failed (will retry): ${(error as Error).message}`);
        break;
      }
      this.slots.settle(grant, claimed.rows.length, null);
      const [row] = claimed.rows;
      if (!row) break;
      const next = await this.executor.execute(row, claimed.sentAt, this.whenAloneOrGivenUp(row));
      continuations.push(next);
      if (next.next.length > 0) break;
    }
    this.slots.resume('quarantine');
    return continuations;
  }

  /** Gives up the action waiting to be alone, if any (it is released with `reason`, uncharged). */
  giveUpHeld(reason: Error): void {
    this.held?.decide(reason);
  }

  /** Gives up the held action when a handler here is stuck: it may never return, and an idle instance can run the action now. */
  giveUpIfStuck(): void {
    if (this.held && this.slots.stuck > 0) this.held.decide(new NotAloneError(this.held.actionId));
  }

  private whenAloneOrGivenUp(row: LeasedActionRow): Promise<Error | null> {
    return new Promise((resolve) => {
      const held = {
        actionId: row.id,
        decide: (reason: Error | null) => {
          if (this.held !== held) return;
          this.held = null;
          resolve(reason);
        },
      };
      this.held = held;
      const others = this.slots.occupied - 1;
      if (others > 0) this.logger.warn(`Quarantined action ${row.id} leased: taking no new work until the ${others} handler(s) running here have returned`);
      void this.slots.whenAlone().then(() => {
        if (this.held !== held) return;
        this.logger.warn(`Running quarantined action ${row.id} (type ${row.type}, attempt ${row.attempts}) alone: its last attempt was lost with its instance`);
        held.decide(null);
      });
    });
  }
}
