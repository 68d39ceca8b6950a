import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Pool } from 'pg';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { ActionContext, QueuedAction } from '../handlers/action-context.interface';
import { HANDLER_DEFAULTS } from '../handlers/action-handler-options.interface';
import { ActionHandlersRegistry, RegisteredHandler } from '../handlers/action-handlers.registry';
import { HandlerTimeoutError } from '../handlers/handler-timeout.error';
import { PermanentFailureError } from '../handlers/permanent-failure.error';
import { AttemptEnd } from './attempt-outcome';
import { AttemptFinisher } from './attempt-finisher.service';
import { fullJitterBackoffMs } from './backoff';
import { ClaimerService } from './claimer.service';
import { NotificationListener } from './notification-listener.service';
import { ReaperService } from './reaper.service';
import { EXTEND_LEASES_SQL } from './sql/extend-leases.sql';
import { ClaimedActionRow } from './sql/claim-actions.sql';
import { WORKER_ID } from './worker-id.token';
import { WorkerMetrics } from './worker-metrics';

/** Longest error text stored (characters). */
const MAX_ERROR_CHARS = 4_000;
/** After a failed claim (database away), wait this long before the next (ms). */
const CLAIM_ERROR_PAUSE_MS = 500;

/** Abort reason when the lease is lost. */
export class LeaseLostError extends Error {
  constructor(actionId: string, attempt: number) {
    super(`lease of action ${actionId} attempt ${attempt} was lost`);
    this.name = 'LeaseLostError';
  }
}

/** Abort reason on shutdown. */
export class ShutdownError extends Error {
  constructor() {
    super('service shutting down; action released');
    this.name = 'ShutdownError';
  }
}

interface RunningAttempt {
  row: ClaimedActionRow;
  controller: AbortController;
  /** When our lease ends, by our last successful heartbeat (ms since epoch, local clock, conservative). */
  leaseDeadline: number;
  /** The handler has returned and its end is being written. */
  finishing: boolean;
  done: Promise<void>;
}

/**
 * The worker loop of one service instance.
 *
 * - Claims when it has free slots (`WORKER_CONCURRENCY`): woken by LISTEN/NOTIFY,
 *   by a finished attempt, and by a poll every `WORKER_POLL_INTERVAL_MS` (the
 *   safety net). Claims never overlap: a wake-up during a claim asks for one
 *   more round instead (@Interval-style timers do not await their tick).
 * - Runs each handler outside any transaction with an AbortSignal, a timeout
 *   and a heartbeat that extends every held lease each third of `LEASE_MS`.
 * - Hands each ended attempt to the {@link AttemptFinisher} (batched, fenced).
 *   Its statement also hands this worker the next head of every group it
 *   released and claims for the other slots it frees, so a busy worker needs
 *   one statement per batch. Slots promised to statements in flight are
 *   reserved, so the worker never runs more than WORKER_CONCURRENCY at once.
 * - A claim that finds less than it asked marks the queue idle: freed slots
 *   then wait for the next wake-up (notification, poll, retry timer) instead
 *   of claiming again for nothing.
 * - On shutdown: stops claiming at once, lets handlers finish up to
 *   `SHUTDOWN_TIMEOUT_MS`, then aborts them and releases their actions.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerService.name);
  private readonly running = new Map<string, RunningAttempt>();
  private claiming = false;
  /** Slots promised to claim statements in flight (claim rounds and finishing batches). */
  private reserved = 0;
  /** Counts wake-ups; a claim that comes back short marks the queue idle only if none came meanwhile. */
  private wakeSeq = 0;
  /** The last claim found fewer claimable actions than slots, and nothing woke us since. */
  private idle = false;
  private claimAgain = false;
  private stopping = false;
  private started = false;
  private types: string[] = [];
  private pausedUntil = 0;
  /** Last time the loop ran a successful claim or had nothing to claim (ms since epoch), for health. */
  lastClaimAt = 0;

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(WORKER_ID) readonly workerId: string,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly registry: ActionHandlersRegistry,
    private readonly claimer: ClaimerService,
    private readonly finisher: AttemptFinisher,
    private readonly reaper: ReaperService,
    private readonly listener: NotificationListener,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** Whether the worker loop runs in this instance. */
  get enabled(): boolean {
    return this.settings.WORKER_ENABLED;
  }

  /** Attempts running now. */
  get busySlots(): number {
    return this.running.size;
  }

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED) return;
    this.types = this.registry.types();
    if (this.types.length === 0) {
      this.logger.warn('No action handlers registered: this worker claims nothing');
    }
    this.started = true;
    const { WORKER_POLL_INTERVAL_MS, LEASE_MS, REAPER_INTERVAL_MS } = this.settings;
    this.scheduler.addInterval(
      'actions-poll',
      setInterval(() => this.pump(), WORKER_POLL_INTERVAL_MS),
    );
    this.scheduler.addInterval(
      'actions-heartbeat',
      setInterval(() => void this.heartbeat(), Math.max(50, Math.floor(LEASE_MS / 3))),
    );
    this.scheduler.addInterval(
      'actions-reaper',
      setInterval(() => void this.reapQuietly(), REAPER_INTERVAL_MS),
    );
    this.listener.start(() => this.pump());
    // Next heads released by our own completions come straight back to us.
    this.finisher.setHandoff({
      types: () => (this.stopping ? [] : this.types),
      leaseMs: LEASE_MS,
      reserve: (finishing) => ({ slots: this.reserveSlots(finishing), wakeSeq: this.wakeSeq, claim: !this.idle }),
      release: (grant, claimed) => {
        this.reserved -= grant.slots;
        if (claimed !== null) this.noteClaimed(grant.slots, claimed, grant.wakeSeq);
      },
      accept: (rows) => rows.forEach((row) => this.start(row)),
    });
    this.logger.log(`Worker ${this.workerId} started: concurrency ${this.settings.WORKER_CONCURRENCY}, lease ${LEASE_MS} ms, types ${this.types.join(', ')}`);
    void this.reapQuietly();
    this.pump();
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    if (!this.started || this.stopping) return;
    this.stopping = true;
    this.logger.log(`Shutting down${signal ? ` (${signal})` : ''}: no new claims; ${this.running.size} running`);
    for (const name of ['actions-poll', 'actions-reaper']) this.deleteInterval(name);
    await this.listener.stop();

    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    if (this.running.size > 0) {
      const finished = await waitAtMost(all(), this.settings.SHUTDOWN_TIMEOUT_MS);
      if (!finished) {
        this.logger.warn(`Shutdown timeout: aborting ${this.running.size} running handler(s) and releasing their actions`);
        for (const r of this.running.values()) r.controller.abort(new ShutdownError());
        // A handler that ignores its signal is released for it; its late result is then fenced.
        if (!(await waitAtMost(all(), 2_000))) await this.releaseStuck();
      }
    }
    this.deleteInterval('actions-heartbeat');
    this.logger.log('Worker stopped');
  }

  /** Asks for a claim round; cheap to call often. */
  /**
   * Asks for a claim round; cheap to call often.
   * @param reason `wake`: something may have become claimable (a notification,
   *   the poll, a retry coming due); `slot`: an attempt ended and freed a slot,
   *   which is only worth a claim if the last claim did not find the queue empty.
   */
  pump(reason: 'wake' | 'slot' = 'wake'): void {
    if (!this.started || this.stopping) return;
    if (reason === 'wake') {
      this.wakeSeq++;
      this.idle = false;
    } else if (this.idle) {
      this.lastClaimAt = Date.now();
      return;
    }
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    if (Date.now() < this.pausedUntil) return;
    if (this.running.size + this.reserved >= this.settings.WORKER_CONCURRENCY || this.types.length === 0) {
      // Nothing to claim, but the loop is alive (health must not fail a busy worker).
      this.lastClaimAt = Date.now();
      return;
    }
    this.claiming = true;
    void this.claimRounds().finally(() => (this.claiming = false));
  }

  private async claimRounds(): Promise<void> {
    do {
      this.claimAgain = false;
      if (this.stopping || this.types.length === 0) return;
      const free = this.reserveSlots(0);
      if (free <= 0) return;
      const seq = this.wakeSeq;
      let rows: ClaimedActionRow[];
      try {
        const claimStarted = performance.now();
        rows = await this.claimer.claim(this.workerId, this.types, free, this.settings.LEASE_MS);
        this.metrics.claimSeconds((performance.now() - claimStarted) / 1000);
        this.lastClaimAt = Date.now();
      } catch (error) {
        this.reserved -= free;
        this.logger.warn(`Claim failed (will retry): ${(error as Error).message}`);
        this.pausedUntil = Date.now() + CLAIM_ERROR_PAUSE_MS;
        // Wake-ups during the pause are dropped by pump(); retry after it so a
        // long WORKER_POLL_INTERVAL_MS does not leave work waiting a whole poll.
        setTimeout(() => this.pump(), CLAIM_ERROR_PAUSE_MS + 10).unref();
        return;
      }
      this.reserved -= free;
      this.noteClaimed(free, rows.length, seq);
      for (const row of rows) this.start(row);
      if (rows.length === free) this.claimAgain = true;
    } while (this.claimAgain && !this.stopping);
  }

  /**
   * Reserves the slots free once `finishing` running attempts have ended, so
   * that claims in flight together never exceed WORKER_CONCURRENCY.
   * @returns how many were reserved (>= 0); give them back by lowering `reserved`.
   */
  private reserveSlots(finishing: number): number {
    const free = Math.max(0, this.settings.WORKER_CONCURRENCY - this.running.size - this.reserved + finishing);
    this.reserved += free;
    return free;
  }

  /** After a claim for `asked` slots returned `got` actions: idle when short and nothing woke us meanwhile. */
  private noteClaimed(asked: number, got: number, seqAtStart: number): void {
    if (got >= asked) this.idle = false;
    else if (this.wakeSeq === seqAtStart) this.idle = true;
  }

  private start(row: ClaimedActionRow): void {
    const registered = this.registry.get(row.type);
    const controller = new AbortController();
    const attempt: RunningAttempt = {
      row,
      controller,
      // Conservative local estimate: the lease was granted no earlier than now.
      leaseDeadline: Date.now() + this.settings.LEASE_MS,
      finishing: false,
      done: Promise.resolve(),
    };
    this.running.set(row.id, attempt);
    this.metrics.claimed(row.type);
    attempt.done = this.execute(attempt, registered).finally(() => {
      this.running.delete(row.id);
      this.pump('slot');
    });
  }

  private async execute(attempt: RunningAttempt, registered: RegisteredHandler | undefined): Promise<void> {
    const { row, controller } = attempt;
    const startedAt = performance.now();
    let end: AttemptEnd;
    let timer: NodeJS.Timeout | undefined;
    try {
      if (!registered) throw new PermanentFailureError(`no handler registered for type "${row.type}"`);
      const { timeoutMs } = registered.options;
      if (timeoutMs) timer = setTimeout(() => controller.abort(new HandlerTimeoutError(timeoutMs)), timeoutMs);
      const action = toQueuedAction(row, registered);
      const ctx: ActionContext = {
        signal: controller.signal,
        attempt: row.attempts,
        workerId: this.workerId,
        // Built on first use: most handlers never log, and a Logger per attempt
        // showed up in the profile of quick handlers.
        get logger(): Logger {
          const logger = new Logger(`action ${row.id} (${row.type}, lock ${row.lock_id ?? '-'}, attempt ${row.attempts})`);
          Object.defineProperty(this, 'logger', { value: logger });
          return logger;
        },
      };
      const result = await registered.instance.handle(action, ctx);
      end = { kind: 'done', resultJson: toResultJson(result) };
    } catch (error) {
      end = this.failureEnd(row, registered, error, controller.signal);
    } finally {
      if (timer) clearTimeout(timer);
    }
    attempt.finishing = true;
    const seconds = (performance.now() - startedAt) / 1000;
    this.metrics.handled(row.type, end.kind, seconds);
    const recorded = await this.finisher.finish(this.workerId, { actionId: row.id, attempt: row.attempts, end }, attempt.leaseDeadline);
    if (recorded) {
      // The retry is claimable at run_at; wake up then rather than at the next poll.
      if (end.kind === 'retry') setTimeout(() => this.pump(), end.delayMs + 5).unref();
      const detail = end.kind === 'done' ? '' : `: ${end.error}`;
      this.logger.debug?.(`action ${row.id} lock ${row.lock_id ?? '-'} attempt ${row.attempts} ${end.kind} in ${Math.round(seconds * 1000)} ms${detail}`);
    } else {
      this.metrics.fenced();
      this.logger.warn(`Discarded the ${end.kind} outcome of action ${row.id} attempt ${row.attempts}: the lease was lost (another attempt owns it now)`);
    }
  }

  private failureEnd(row: ClaimedActionRow, registered: RegisteredHandler | undefined, error: unknown, signal: AbortSignal): AttemptEnd {
    const reason = signal.aborted ? signal.reason : undefined;
    const cause = reason instanceof HandlerTimeoutError || reason instanceof ShutdownError || reason instanceof LeaseLostError ? reason : error;
    const message = describeError(cause);
    if (cause instanceof ShutdownError) return { kind: 'released', error: message };
    const maxAttempts = Math.min(row.max_attempts, registered?.options.maxAttempts ?? Infinity);
    if (cause instanceof PermanentFailureError || row.attempts >= maxAttempts) return { kind: 'failed', error: message };
    // Handler options first, then the RETRY_BACKOFF_* settings (defaults equal HANDLER_DEFAULTS).
    const base = registered?.options.backoffBaseMs ?? this.settings.RETRY_BACKOFF_BASE_MS ?? HANDLER_DEFAULTS.backoffBaseMs;
    const cap = registered?.options.backoffCapMs ?? this.settings.RETRY_BACKOFF_CAP_MS ?? HANDLER_DEFAULTS.backoffCapMs;
    return { kind: 'retry', error: message, delayMs: fullJitterBackoffMs(row.attempts, base, cap) };
  }

  /** Extends every held lease; aborts the attempts whose lease is gone. */
  private async heartbeat(): Promise<void> {
    if (this.running.size === 0) return;
    const held = [...this.running.values()];
    const sentAt = Date.now();
    let still: Map<string, boolean>;
    try {
      const { rows } = await this.pool.query<{ id: string; extended: boolean }>({
        ...EXTEND_LEASES_SQL,
        values: [this.workerId, held.map((h) => h.row.id), held.map((h) => h.row.attempts), this.settings.LEASE_MS],
      });
      still = new Map(rows.map((r) => [r.id, r.extended]));
    } catch (error) {
      this.logger.warn(`Heartbeat failed (leases not extended): ${(error as Error).message}`);
      return;
    }
    for (const h of held) {
      const extended = still.get(h.row.id);
      if (extended) {
        h.leaseDeadline = sentAt + this.settings.LEASE_MS;
      } else if (extended === undefined && !h.finishing && !h.controller.signal.aborted) {
        // (extended === false: still ours, its row was busy; the next beat extends it.)
        this.logger.warn(`Lease lost for action ${h.row.id} attempt ${h.row.attempts}; aborting its handler`);
        h.controller.abort(new LeaseLostError(h.row.id, h.row.attempts));
      }
    }
  }

  private async reapQuietly(): Promise<void> {
    try {
      const reaped = await this.reaper.reap();
      if (reaped > 0) this.pump();
    } catch (error) {
      this.logger.warn(`Reaper failed (will retry): ${(error as Error).message}`);
    }
  }

  /** Releases attempts whose handlers ignored the shutdown signal. */
  private async releaseStuck(): Promise<void> {
    const stuck = [...this.running.values()].filter((r) => !r.finishing);
    await Promise.all(
      stuck.map((r) =>
        this.finisher.finish(
          this.workerId,
          { actionId: r.row.id, attempt: r.row.attempts, end: { kind: 'released', error: 'handler ignored the shutdown signal' } },
          r.leaseDeadline,
        ),
      ),
    );
  }

  private deleteInterval(name: string): void {
    try {
      this.scheduler.deleteInterval(name);
    } catch {
      // not registered
    }
  }
}

function toQueuedAction(row: ClaimedActionRow, registered: RegisteredHandler): QueuedAction {
  return {
    id: row.id,
    lockId: row.lock_id,
    type: row.type,
    payload: row.payload,
    attempt: row.attempts,
    maxAttempts: Math.min(row.max_attempts, registered.options.maxAttempts ?? Infinity),
    onFailure: row.on_failure,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
  };
}

/**
 * A handler's return value as the JSON text to store (serialised once, here).
 * NUL characters are dropped from strings (PostgreSQL's jsonb cannot hold them).
 * @throws PermanentFailureError when it is not JSON-serialisable, or a key or
 *   string holds NUL (keys) or an unpaired UTF-16 surrogate, which jsonb
 *   refuses (and the whole finishing batch would fail with it).
 */
function toResultJson(result: unknown): string {
  let text: string | undefined;
  // Fast path: JSON.stringify escapes a NUL as \u0000 and a lone surrogate as
  // \udXXX; without such an escape the text is what jsonb stores. Otherwise
  // (or on a backslash-u in the data itself) the checked path below decides.
  try {
    text = JSON.stringify(result);
  } catch {
    text = undefined;
  }
  if (text !== undefined && !/\\u(0000|d[89a-f])/i.test(text)) return text;
  try {
    text = JSON.stringify(result, (key: string, value: unknown) => {
      if (!key.isWellFormed() || key.includes('\u0000')) throw new PermanentFailureError('handler result has a key that jsonb cannot store');
      if (typeof value !== 'string') return value;
      if (!value.isWellFormed()) throw new PermanentFailureError('handler result contains an unpaired UTF-16 surrogate');
      return value.includes('\u0000') ? value.replace(/\u0000/g, '') : value;
    });
  } catch (error) {
    if (error instanceof PermanentFailureError) throw error;
    throw new PermanentFailureError(`handler result is not JSON-serialisable: ${(error as Error).message}`);
  }
  return text ?? 'null';
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return text.replace(/\u0000/g, '').slice(0, MAX_ERROR_CHARS) || 'unknown error';
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
