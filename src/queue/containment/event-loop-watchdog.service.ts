import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { DATABASE_URL } from '../../database/database-url.token';
import { QUEUE_PLACEMENT } from '../../database/queue-placement.token';
import type { QueuePlacement } from '../../database/queue-schema';
import { shutdownStep, THREAD_STOP_TIMEOUT_MS } from '../../shutdown-steps';
import { LeaseTiming } from '../instance/lease-timing';
import { LEASE_TIMING } from '../instance/lease-timing.token';
import { WORKER_ID } from '../instance/worker-id.token';
import { WatchdogConfig, WatchdogSharedState } from './watchdog-shared-state';

/** The thread's file, next to this one (.js when compiled, .ts under ts-node or jest). */
const THREAD_FILE = join(__dirname, `event-loop-watchdog.thread${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

/**
 * How often the main loop writes its tick for the watchdog thread (ms): a
 * fifth of the fence check interval (LEASE_MS / 12), between 100 and 500 ms,
 * and never more often than the fence check itself. The thread calls the loop
 * stalled when the tick is older than `max(3 × tick, fence check)`; with a
 * tick of at most a third of the fence check that threshold is the fence check
 * interval, as it was with the former 100 ms tick, so a stall is caught just
 * as soon. A tick is a timer that wakes an idle instance: 500 ms instead of
 * 100 ms at the default LEASE_MS of 30 s saves about 0.7 ms of CPU a second
 * (bench/README.md, "Idle instances", 2026-12-03). Short leases keep a tick
 * as short as before: min(100, fence check) below 500 ms of fence check.
 *
 * @param fenceCheckEveryMs LeaseTiming.fenceCheckEveryMs (ms).
 * @returns the tick interval (ms), at least 1.
 */
export function watchdogTickEveryMs(fenceCheckEveryMs: number): number {
  return Math.max(1, Math.min(100, fenceCheckEveryMs), Math.min(500, Math.floor(fenceCheckEveryMs / 5)));
}

/**
 * Guards the leases against a stalled event loop (a handler that busy-loops,
 * a synchronous call that never returns): while the loop is stalled no
 * heartbeat is sent and no handler can be told to stop, so another instance
 * would take the actions over while this one may still run them. A worker
 * thread (event-loop-watchdog.thread.ts) watches a tick that the main loop
 * writes every LEASE_MS/60 (between 100 and 500 ms; see watchdogTickEveryMs) into shared memory, next to the
 * earliest lease deadline (WatchdogSharedState, kept by the LeaseKeeper);
 * when the loop has stalled and a deadline comes
 * within the self-fencing margin, the thread releases this worker's actions
 * and kills the process first (WATCHDOG_ENABLED; worker instances only).
 */
@Injectable()
export class EventLoopWatchdog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventLoopWatchdog.name);
  private thread: Worker | null = null;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(QUEUE_PLACEMENT) private readonly placement: QueuePlacement,
    private readonly state: WatchdogSharedState,
    @Inject(LEASE_TIMING) private readonly timing: LeaseTiming,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED || !this.settings.WATCHDOG_ENABLED) return;
    const timing = this.timing;
    const tickEveryMs = watchdogTickEveryMs(timing.fenceCheckEveryMs);
    this.state.tick();
    this.ticker = setInterval(() => this.state.tick(), tickEveryMs);
    const config: WatchdogConfig = {
      state: this.state.buffer,
      databaseUrl: this.databaseUrl,
      placement: this.placement,
      workerId: this.workerId,
      // The main loop fences itself at fenceBeforeMs; the watchdog acts a
      // check later, when that did not happen because the loop is stalled.
      fenceBeforeMs: timing.guaranteedMarginMs,
      stallMs: Math.max(3 * tickEveryMs, timing.fenceCheckEveryMs),
      checkEveryMs: Math.max(5, Math.floor(timing.fenceCheckEveryMs / 2)),
      releaseTimeoutMs: Math.max(20, Math.floor(timing.guaranteedMarginMs / 2)),
      releaseDelayMs: Math.max(1_000, timing.guaranteedMarginMs),
    };
    const execArgv = THREAD_FILE.endsWith('.ts') ? ['-r', 'ts-node/register/transpile-only'] : [];
    // A small heap: the thread holds one connection and a few numbers.
    this.thread = new Worker(THREAD_FILE, { workerData: config, execArgv, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } });
    this.thread.unref();
    this.thread.on('error', (error) => this.logger.error(`Event-loop watchdog thread failed: ${error.message}`));
  }

  /** Stops the watchdog thread, waiting at most THREAD_STOP_TIMEOUT_MS for it to terminate. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.ticker);
    const thread = this.thread;
    this.thread = null;
    if (thread) await shutdownStep('event-loop watchdog thread terminating', thread.terminate(), THREAD_STOP_TIMEOUT_MS, this.logger);
  }
}
