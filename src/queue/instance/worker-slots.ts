import { Inject, Injectable } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';

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
 *   ignored its timeout is `stuck`): the worker never runs handlers of more
 *   actions at once than WORKER_CONCURRENCY.
 * - An action holds at most one slot: a retry of an action whose earlier
 *   handler here has not settled shares that action's slot (before, each
 *   retry of a handler that never settles took another slot, until every
 *   slot was stuck). The slot is free when the action's last handler settles.
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
  /** Handlers not settled yet, by action id (an action's entry holds its one slot). */
  private readonly liveHandlers = new Map<string, number>();
  /** Handlers stuck (attempt ended, promise not settled), by action id. */
  private readonly stuckHandlers = new Map<string, number>();
  private slotFreed: () => void = () => undefined;
  /** 1 while a suspect may be due and none runs here: one slot is kept from claims for it. */
  private heldBack = 0;
  private wakeSeq = 0;
  private queueIdle = false;
  private readonly pauses = new Set<PauseReason>();

  constructor(@Inject(SETTINGS) private readonly settings: QueueSettings) {}

  /** Handlers running now (stuck ones included). */
  get occupied(): number {
    return this.occupiedCount;
  }

  /** Handlers whose attempt ended (timeout, lost lease) but which have not returned yet. */
  get stuck(): number {
    return this.stuckCount;
  }

  /** Slots held by stuck handlers: actions with at least one (each action holds one slot however many). */
  get stuckSlots(): number {
    return this.stuckHandlers.size;
  }

  /** Calls `listener` when a slot is freed other than by a handler settling (an attempt sharing its action's slot). */
  onSlotFreed(listener: () => void): void {
    this.slotFreed = listener;
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
  settle(grant: SlotGrant, started: number, asked: number | null): void {
    this.reservedCount -= grant.slots;
    this.occupiedCount += started;
    if (asked === null || asked === 0) return;
    if (started >= asked) this.queueIdle = false;
    else if (this.wakeSeq === grant.wakeSeq) this.queueIdle = true;
  }

  /** A slot is free (a handler settled, or an attempt gave back the slot it shares with its action's live handler). */
  vacate(): void {
    this.occupiedCount--;
  }

  /**
   * The handler of an attempt of `actionId` is about to start, in a slot
   * occupied for it. When a handler of the same action is still live here (a
   * stuck one), the new one shares its slot: the slot granted for it is given
   * back at once.
   */
  handlerStarting(actionId: string): void {
    const live = this.liveHandlers.get(actionId) ?? 0;
    this.liveHandlers.set(actionId, live + 1);
    if (live > 0) {
      this.vacate();
      this.slotFreed();
    }
  }

  /** Whether settling the handler of `actionId` now frees its slot: no other handler of the action is live here. */
  freesSlotWhenSettled(actionId: string): boolean {
    return (this.liveHandlers.get(actionId) ?? 0) <= 1;
  }

  /** A handler of `actionId` settled (or never started): the action's slot is free once its last live handler has. */
  handlerSettled(actionId: string): void {
    const live = (this.liveHandlers.get(actionId) ?? 1) - 1;
    if (live > 0) return void this.liveHandlers.set(actionId, live);
    this.liveHandlers.delete(actionId);
    this.vacate();
  }

  /** Counts a handler of `actionId` as stuck (+1) or no longer stuck (-1). */
  markStuck(actionId: string, delta: 1 | -1): void {
    this.stuckCount += delta;
    const count = (this.stuckHandlers.get(actionId) ?? 0) + delta;
    if (count > 0) this.stuckHandlers.set(actionId, count);
    else this.stuckHandlers.delete(actionId);
  }
}
