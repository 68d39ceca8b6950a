import { monotonicNow } from '../instance/monotonic-clock';

/** Delays of a tick up to this many ms past its schedule are the timer's noise, not a stall. */
const NOISE_MS = 10;

/** One stall seen by a tick: it ended at `endedAt` (monotonic ms) and lasted `ms`. */
interface Stall {
  endedAt: number;
  ms: number;
}

/**
 * Measures how long this thread's event loop has stalled: a timer ticks every
 * `tickEveryMs`, and a tick that comes late by more than the timer's noise
 * records the delay as a stall. The LeaseKeeper asks it, when it self-fences,
 * whether the loop's own stalls explain the renewals that failed (an instance
 * in an out-of-memory spiral, a handler that blocks the loop) rather than the
 * database: such an attempt is a loss with its instance, not a release
 * (docs/guarantees.md, poison detection).
 *
 * The tick is a timer like any other, so the stall in progress (no tick yet)
 * counts too: {@link stalledMsSince} adds the current tick's delay.
 */
export class LoopStallMeter {
  private readonly stalls: Stall[] = [];
  private lastTick: number;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param tickEveryMs how often the timer ticks (ms, > 0).
   * @param keepMs how long a stall is remembered after it ended (ms): the
   *   longest window {@link stalledMsSince} is asked about.
   * @param now the monotonic clock (ms); replaced in unit specs.
   */
  constructor(
    private readonly tickEveryMs: number,
    private readonly keepMs: number,
    private readonly now: () => number = monotonicNow,
  ) {
    this.lastTick = now();
  }

  /** Starts the timer (unref'd: it never keeps the process alive); no-op while it runs. */
  start(): void {
    if (this.timer) return;
    this.lastTick = this.now();
    this.timer = setInterval(() => this.tick(), this.tickEveryMs).unref();
  }

  /** Stops the timer and forgets the stalls (a later {@link start} measures afresh). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stalls.length = 0;
  }

  /** Records the delay of this tick, if any (the timer calls it; public for unit specs). */
  tick(): void {
    const now = this.now();
    const late = now - this.lastTick - this.tickEveryMs;
    this.lastTick = now;
    if (late > NOISE_MS) this.stalls.push({ endedAt: now, ms: late });
    while (this.stalls.length > 0 && this.stalls[0].endedAt < now - this.keepMs) this.stalls.shift();
  }

  /**
   * How long the event loop stalled after `since` (monotonic ms): the stalls
   * recorded since, each counted only for its part after `since`, plus the
   * delay of the tick that is due now and has not run yet.
   * @returns milliseconds, >= 0.
   */
  stalledMsSince(since: number): number {
    const now = this.now();
    let total = 0;
    for (const stall of this.stalls) {
      if (stall.endedAt <= since) continue;
      total += Math.min(stall.ms, stall.endedAt - since);
    }
    const pending = now - this.lastTick - this.tickEveryMs;
    if (pending > NOISE_MS) total += Math.min(pending, now - Math.max(since, this.lastTick + this.tickEveryMs));
    return Math.max(0, total);
  }
}
