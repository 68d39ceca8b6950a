import type { QueuePlacement } from '../../database/queue-schema';
import { monotonicNow } from '../instance/monotonic-clock';

/** Float64 slots of the shared buffer. */
const SLOT = { lastTick: 0, earliestDeadline: 1, syncHandlerActionId: 2 } as const;
const SLOT_COUNT = 3;

/**
 * What the main thread tells the event-loop watchdog thread, in shared memory
 * (a SharedArrayBuffer of Float64 slots, written by the main thread only):
 * when the main loop last ticked, the earliest deadline of the leases held,
 * and which action's handler is running synchronously right now. Times are
 * monotonic ms (monotonic-clock.ts), the same in both threads. (No Nest
 * decorator: the watchdog thread loads this file, and should not load Nest.)
 */
export class WatchdogSharedState {
  private readonly slots: Float64Array;

  constructor() {
    this.slots = new Float64Array(new SharedArrayBuffer(SLOT_COUNT * Float64Array.BYTES_PER_ELEMENT));
    this.slots[SLOT.lastTick] = monotonicNow();
    this.slots[SLOT.earliestDeadline] = Infinity;
    this.slots[SLOT.syncHandlerActionId] = -1;
  }

  /** The state over a buffer made by another thread (the watchdog thread reads it this way). */
  static attach(buffer: SharedArrayBuffer): WatchdogSharedState {
    const state = Object.create(WatchdogSharedState.prototype) as { slots: Float64Array };
    state.slots = new Float64Array(buffer);
    return state as unknown as WatchdogSharedState;
  }

  /** The buffer to hand to the thread. */
  get buffer(): SharedArrayBuffer {
    return this.slots.buffer as SharedArrayBuffer;
  }

  /** The main event loop is alive now. */
  tick(): void {
    this.slots[SLOT.lastTick] = monotonicNow();
  }

  get lastTick(): number {
    return this.slots[SLOT.lastTick];
  }

  /** Sets the earliest lease deadline (monotonic ms; Infinity: no lease). */
  setEarliestDeadline(deadline: number): void {
    this.slots[SLOT.earliestDeadline] = deadline;
  }

  /** Lowers the earliest deadline to `deadline` if it is earlier (a new lease). */
  lowerEarliestDeadline(deadline: number): void {
    if (deadline < this.slots[SLOT.earliestDeadline]) this.slots[SLOT.earliestDeadline] = deadline;
  }

  get earliestDeadline(): number {
    return this.slots[SLOT.earliestDeadline];
  }

  /** The synchronous part of action `actionId`'s handler starts (a stall now is its fault). */
  enterHandler(actionId: string): void {
    const id = Number(actionId);
    this.slots[SLOT.syncHandlerActionId] = Number.isSafeInteger(id) ? id : -1;
  }

  /** The synchronous part of the handler returned. */
  leaveHandler(): void {
    this.slots[SLOT.syncHandlerActionId] = -1;
  }

  /** The action whose handler is running synchronously, or null. */
  get syncHandlerActionId(): string | null {
    const id = this.slots[SLOT.syncHandlerActionId];
    return id >= 0 ? String(id) : null;
  }
}

/** What the watchdog thread needs (its `workerData`). */
export interface WatchdogConfig {
  state: SharedArrayBuffer;
  databaseUrl: string;
  /** The queue's schema and pooler: the connection pins its search_path like the pool's (queue-schema.ts). */
  placement: QueuePlacement;
  workerId: string;
  /** Act once this close to the earliest deadline (ms). */
  fenceBeforeMs: number;
  /** The loop counts as stalled after this long without a tick (ms). */
  stallMs: number;
  /** How often the thread looks (ms). */
  checkEveryMs: number;
  /** Longest wait for the release statement before the process is killed anyway (ms). */
  releaseTimeoutMs: number;
  /** Released actions become claimable only after this delay (ms): the process is dead by then. */
  releaseDelayMs: number;
}
