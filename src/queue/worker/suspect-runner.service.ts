import { Injectable, Logger } from '@nestjs/common';
import { AttemptExecutor, Continuation } from '../attempt/attempt-executor.service';
import { Claimed, ClaimerService } from '../claim/claimer.service';
import { SlotGrant, WorkerSlots } from '../instance/worker-slots';

/** The suspect this instance runs now: its action id and how long its attempt has run (ms). */
export interface RunningSuspect {
  actionId: string;
  runningForMs: number;
}

/**
 * Poison detection, the worker's side: runs suspect actions (`quarantined`:
 * lost with their instance twice in a row, once alone or with one other, or
 * three times, see src/database/sql/047-singled-losses.up.sql) at most one at a
 * time per instance, in one slot, beside the instance's other work.
 *
 * Why in-process and not in a thread or child process: a handler is a Nest
 * provider with injected dependencies, which only the instance that built it
 * can run; only `isolation: 'thread'` handlers could move. So the suspect
 * runs like any attempt and the evidence is in the database: if the instance
 * dies again while the suspect runs, the suspect's loss is charged (one
 * suspect per instance, so no other suspect shares that charge), and if its
 * instance cannot keep it leased it is left to expire (AttemptRunner) and
 * charged the same way. It costs one slot for the attempt's own duration
 * (bounded by its `timeoutMs`); the other slots keep taking work.
 */
@Injectable()
export class SuspectRunner {
  private readonly logger = new Logger(SuspectRunner.name);
  /** Whether this instance is claiming or running a suspect now. */
  private busy = false;
  /** Whether a suspect may be due: set by each poll, cleared when a claim finds none. */
  private maybeDue = true;
  /** The suspect whose attempt runs here now, and when it started (ms since epoch). */
  private current: { actionId: string; startedAt: number } | null = null;

  constructor(
    private readonly slots: WorkerSlots,
    private readonly claimer: ClaimerService,
    private readonly executor: AttemptExecutor,
  ) {}

  /** Whether a suspect is being claimed or runs on this instance now. */
  get running(): boolean {
    return this.busy;
  }

  /** The suspect running here now (for /health and /metrics), or null. */
  get runningSuspect(): RunningSuspect | null {
    return this.current && { actionId: this.current.actionId, runningForMs: Date.now() - this.current.startedAt };
  }

  /** A suspect may be due (the worker's poll says so): the next {@link runOne} asks the database. */
  markMaybeDue(): void {
    this.maybeDue = true;
    // Until it has asked, keep a slot for it: claims would take every freed one first.
    if (!this.busy) this.slots.holdBackOne(true);
  }

  /**
   * Claims one due suspect and runs it, unless one runs here already, the
   * last ask since {@link markMaybeDue} found none, the worker is paused, or
   * no slot is free. Called when a slot frees, before the claim round takes
   * it, so that a saturated instance still gives a suspect a slot.
   * @returns null (synchronously) when it did not ask; else what the
   *   attempt's finishing statement left to do, or null when none was due.
   *   Never rejects (a failed claim is logged and retried on the next poll).
   */
  runOne(): Promise<Continuation | null> | null {
    if (this.busy || !this.maybeDue) return null;
    const grant = this.slots.reserveOne();
    if (!grant) return null;
    this.busy = true;
    return this.claimAndRun(grant).finally(() => {
      this.busy = false;
      this.current = null;
    });
  }

  private async claimAndRun(grant: SlotGrant): Promise<Continuation | null> {
    let claimed: Claimed;
    try {
      claimed = await this.claimer.claimQuarantined();
    } catch (error) {
      this.slots.settle(grant, 0, null);
      this.maybeDue = false; // asked again on the next poll
      this.logger.warn(`Claim of a suspect action failed (will retry): ${(error as Error).message}`);
      return null;
    }
    this.slots.settle(grant, claimed.rows.length, null);
    const [row] = claimed.rows;
    if (!row) {
      this.maybeDue = false;
      return null;
    }
    this.logger.warn(
      `Running suspect action ${row.id} (type ${row.type}, attempt ${row.attempts}) in one slot beside other work: lost with its instance more than once in a row; charged if lost again`,
    );
    this.current = { actionId: String(row.id), startedAt: Date.now() };
    // A resolved gate: the attempt counts as a suspect's (AttemptRunner leaves it to expire, a loss, when this instance cannot keep it leased).
    return this.executor.execute(row, claimed.sentAt, Promise.resolve(null));
  }
}
