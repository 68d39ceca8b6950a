import { Inject, Injectable } from '@nestjs/common';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';

/** Why this worker takes no new work right now. */
export type PauseReason = 'stopping' | 'fenced';

/** Slots promised to one claim or finishing statement. */
export interface SlotGrant {
  slots: number;
  /** Whether to claim beyond hand-offs (false while the queue is known to be empty). */
  claim: boolean;
  /** The wake-up count when granted (see {@link WorkerSlots.settle}). */
  wakeSeq: number;
}

/**
 * The only owner of this worker's slot accounting (WORKER_CONCURRENCY), and of
 * whether it takes new work at all.
 *
 * - A slot is `occupied` from the start of an attempt until its handler's
 *   promise settles, even after the attempt itself has ended (a handler that
 *   ignored its timeout is `stuck`): the worker never runs more handlers at
 *   once than WORKER_CONCURRENCY.
 * - Slots promised to statements in flight (claims, and finishing statements
 *   that take the next work) are `reserved`, so concurrent statements never
 *   take more than the free slots together.
 * - A claim that finds less than it asked marks the queue `idle`: freed slots
 *   then wait for the next wake-up instead of claiming again for nothing.
 * - While paused (shutdown, self-fencing) no slot is granted.
 */
@Injectable()
export class WorkerSlots {
  private occupiedCount = 0;
  private reservedCount = 0;
  private stuckCount = 0;
  /** 1 while a suspect may be due and none runs here: one slot is kept from claims for it. */
  private heldBack = 0;
  private wakeSeq = 0;
  private queueIdle = false;
  private readonly pauses = new Set<PauseReason>();

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  /** Handlers running now (stuck ones included). */
  get occupied(): number {
    return this.occupiedCount;
  }

  /** Handlers whose attempt ended (timeout, lost lease) but which have not returned yet. */
  get stuck(): number {
    return this.stuckCount;
  }

  /** Whether the last claim found the queue empty and nothing woke the worker since. */
  get idle(): boolean {
    return this.queueIdle;
  }

  /** Whether new work is refused, and why. */
  isPaused(reason?: PauseReason): boolean {
    return reason ? this.pauses.has(reason) : this.pauses.size > 0;
  }

  pause(reason: PauseReason): void {
    this.pauses.add(reason);
  }

  resume(reason: PauseReason): void {
    this.pauses.delete(reason);
  }

  /** Something may have become claimable (a notification, the poll, a due time). */
  wake(): void {
    this.wakeSeq++;
    this.queueIdle = false;
  }

  /**
   * Reserves the slots that are free once `finishing` attempts (whose
   * handlers have returned) are recorded. Give them back with {@link settle}.
   * @returns the grant; 0 slots while paused or full.
   */
  reserve(finishing = 0): SlotGrant {
    const free = this.pauses.size > 0 ? 0 : Math.max(0, this.settings.WORKER_CONCURRENCY - this.occupiedCount - this.reservedCount - this.heldBack + finishing);
    this.reservedCount += free;
    return { slots: free, claim: !this.queueIdle, wakeSeq: this.wakeSeq };
  }

  /**
   * Keeps one slot from {@link reserve} (true) or gives it back (false): a
   * suspect may be due, and on a saturated instance every freed slot would
   * otherwise go to the next claim first.
   */
  holdBackOne(hold: boolean): void {
    this.heldBack = hold ? 1 : 0;
  }

  /**
   * Reserves one free slot, the held-back one included (for a suspect action,
   * which runs in one slot beside the others), and ends the hold. Give it
   * back with {@link settle}.
   * @returns the grant, or null while paused or full.
   */
  reserveOne(): SlotGrant | null {
    if (this.pauses.size > 0 || this.occupiedCount + this.reservedCount >= this.settings.WORKER_CONCURRENCY) return null;
    this.heldBack = 0;
    this.reservedCount += 1;
    return { slots: 1, claim: true, wakeSeq: this.wakeSeq };
  }

  /**
   * Ends a grant after its statement: `started` actions now occupy slots.
   * @param asked how many the statement tried to claim beyond hand-offs, or
   *   null when the statement failed; fewer found than asked marks the queue idle.
   */
  settle(grant: SlotGrant, started: number, asked: number | null, found = started): void {
    this.reservedCount -= grant.slots;
    this.occupiedCount += started;
    if (asked === null || asked === 0) return;
    if (found >= asked) this.queueIdle = false;
    else if (this.wakeSeq === grant.wakeSeq) this.queueIdle = true;
  }

  /** A handler's promise settled: its slot is free. */
  vacate(): void {
    this.occupiedCount--;
  }

  /** Counts a handler as stuck (+1) or no longer stuck (-1). */
  markStuck(delta: 1 | -1): void {
    this.stuckCount += delta;
  }
}
