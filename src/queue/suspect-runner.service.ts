import { Injectable, Logger } from '@nestjs/common';
import { AttemptExecutor, Continuation } from './attempt-executor.service';
import { Claimed, ClaimerService } from './claimer.service';
import { WorkerSlots } from './worker-slots';

/**
 * Poison detection, the worker's side: runs suspect actions (`quarantined`:
 * lost with their instance twice in a row, see
 * src/database/sql/011-lost-attempts-in-parallel.up.sql) at most one at a
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

  constructor(
    private readonly slots: WorkerSlots,
    private readonly claimer: ClaimerService,
    private readonly executor: AttemptExecutor,
  ) {}

  /** Whether a suspect is being claimed or runs on this instance now. */
  get running(): boolean {
    return this.busy;
  }

  /**
   * Claims one due suspect and runs it, unless one runs here already, the
   * worker is paused, or no slot is free.
   * @returns what the attempt's finishing statement left to do, or null when
   *   nothing ran; never rejects (a failed claim is logged and retried on the next poll).
   */
  async runOne(): Promise<Continuation | null> {
    if (this.busy) return null;
    const grant = this.slots.reserveOne();
    if (!grant) return null;
    this.busy = true;
    try {
      let claimed: Claimed;
      try {
        claimed = await this.claimer.claimQuarantined();
      } catch (error) {
        this.slots.settle(grant, 0, null);
        this.logger.warn(`Claim of a suspect action failed (will retry): ${(error as Error).message}`);
        return null;
      }
      this.slots.settle(grant, claimed.rows.length, null);
      const [row] = claimed.rows;
      if (!row) return null;
      this.logger.warn(
        `Running suspect action ${row.id} (type ${row.type}, attempt ${row.attempts}) in one slot beside other work: lost with its instance twice in a row; charged if lost again`,
      );
      // A resolved gate: the attempt counts as a suspect's (AttemptRunner leaves it to expire, a loss, when this instance cannot keep it leased).
      return await this.executor.execute(row, claimed.sentAt, Promise.resolve(null));
    } finally {
      this.busy = false;
    }
  }
}
