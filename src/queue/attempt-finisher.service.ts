import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { AttemptToFinish } from './attempt-outcome';
import { ClaimedActionRow } from './sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL, FinishAttemptsRow } from './sql/finish-attempts.sql';

/** Slots reserved for one statement, and the worker's wake-up count when they were. */
export interface SlotGrant {
  slots: number;
  wakeSeq: number;
  /** Whether to claim beyond hand-offs (false while the queue is known to be empty). */
  claim: boolean;
}

/**
 * Who takes the actions a finishing batch hands off or claims (see
 * FINISH_ATTEMPTS_SQL): the worker's runnable types, its lease length, how many
 * slots it can fill, and a callback that starts them. `types()` returning []
 * turns hand-off and claiming off.
 */
export interface HandoffTarget {
  types(): string[];
  leaseMs: number;
  /**
   * Reserves the slots that will be free once `finishing` attempts have ended;
   * the finisher hands the grant back with `release(grant, claimed)` after the
   * statement (`claimed`: how many actions it took, null if it failed), then
   * starts at most `grant.slots` actions through `accept`.
   */
  reserve(finishing: number): SlotGrant;
  release(grant: SlotGrant, claimed: number | null): void;
  accept(rows: ClaimedActionRow[]): void;
}

/**
 * Statements in flight at once, each with its own batch, and at most half the
 * connection pool. With several in flight the database works on one batch
 * (on one core) while the handlers of the others run and other batches are
 * written (on the other): the benchmark's wide scenario went from about
 * 5 700 to 8 000-10 400 actions/s here with 4 (bench/README.md).
 */
const MAX_FLUSHERS = 4;
/**
 * A statement goes out beside one already in flight only with at least this
 * many attempts: small batches cost more per attempt than the overlap gains,
 * so a worker with few slots keeps one statement at a time.
 */
const PIPELINE_MIN_BATCH = 32;
/** Most attempts written by one statement. */
const MAX_BATCH = 128;
/** Pause between tries of a failed write (ms), doubled up to the cap. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 2_000;

interface Waiting {
  item: AttemptToFinish;
  /** Give up writing after this time (ms since epoch): the lease is gone by then. */
  deadline: number;
  /** A write of it failed once. Only then does the deadline apply: the first
   * write always goes out, since the fenced statement, not the local clock,
   * decides whether the lease is still held. */
  failed?: boolean;
  /** Times the database deferred it (its group was held by a producer). */
  deferrals?: number;
  resolve: (recorded: boolean) => void;
}

/** First pause before re-sending a deferred attempt (ms), doubled up to the cap. */
const DEFER_BASE_MS = 20;
const DEFER_CAP_MS = 1_000;

/**
 * Records ended attempts. Attempts that end while a write is in flight are
 * grouped into the next statement, so under load one commit ends many
 * attempts (and promotes their groups' next heads). A write that fails (the
 * database restarting, a deadlock with a producer) is retried with backoff
 * until the attempt's lease would have expired; after that the reaper owns the
 * action and the outcome is dropped.
 */
@Injectable()
export class AttemptFinisher {
  private readonly logger = new Logger(AttemptFinisher.name);
  private queue: Waiting[] = [];
  private flushers = 0;
  private flushScheduled = false;
  private handoff: HandoffTarget | null = null;

  private readonly maxFlushers: number;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {
    // Leave half the pool to claims, heartbeats and the API.
    this.maxFlushers = Math.max(1, Math.min(MAX_FLUSHERS, Math.floor((pool.options.max ?? 10) / 2)));
  }

  /** Sets (or clears, with null) the receiver of handed-off next heads. */
  setHandoff(target: HandoffTarget | null): void {
    this.handoff = target;
  }

  /**
   * Queues an attempt's end for writing.
   * @param workerId the lease owner.
   * @param item the attempt and its end.
   * @param deadline ms since epoch after which the write is abandoned.
   * @returns true when recorded; false when fenced (lease lost) or abandoned.
   */
  finish(workerId: string, item: AttemptToFinish, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.queue.push({ item, deadline, resolve });
      this.scheduleFlush(workerId);
    });
  }

  private scheduleFlush(workerId: string): void {
    // Start on the next turn of the event loop, so that every attempt that
    // ends in this turn (a claimed batch of instant handlers) shares one
    // statement. Up to maxFlushers statements run at once: batches hold
    // disjoint groups and lock them in lock_id order, so they cannot deadlock.
    if (this.flushers >= this.maxFlushers || this.flushScheduled) return;
    if (this.flushers > 0 && this.queue.length < PIPELINE_MIN_BATCH) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushers++;
      void this.flush(workerId).finally(() => {
        this.flushers--;
        // An attempt queued between the loop's last check and now still gets written.
        if (this.queue.length > 0) this.scheduleFlush(workerId);
      });
    });
  }

  private async flush(workerId: string): Promise<void> {
    let delay = RETRY_BASE_MS;
    while (this.queue.length > 0) {
      // A statement still in flight takes a small remainder when it ends.
      if (this.flushers > 1 && this.queue.length < PIPELINE_MIN_BATCH) break;
      const now = Date.now();
      const isExpired = (w: Waiting) => w.failed === true && w.deadline <= now;
      const expired = this.queue.filter(isExpired);
      for (const w of expired) {
        this.logger.warn(`Gave up recording attempt ${w.item.attempt} of action ${w.item.actionId}: lease expired while the database was unreachable`);
        w.resolve(false);
      }
      this.queue = this.queue.filter((w) => !isExpired(w));
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length === 0) break;
      try {
        const { recorded, deferred } = await this.write(
          workerId,
          batch.map((w) => w.item),
        );
        for (const w of batch) {
          const key = `${w.item.actionId}:${w.item.attempt}`;
          if (deferred.has(key)) this.deferLater(workerId, w);
          else w.resolve(recorded.has(key));
        }
        delay = RETRY_BASE_MS;
      } catch (error) {
        this.logger.warn(`Recording ${batch.length} attempt(s) failed, retrying in ${delay} ms: ${(error as Error).message}`);
        for (const w of batch) w.failed = true;
        this.queue.unshift(...batch);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, RETRY_CAP_MS);
      }
    }
  }

  /** Sends a deferred attempt again after a pause (its lease keeps being extended meanwhile). */
  private deferLater(workerId: string, w: Waiting): void {
    w.deferrals = (w.deferrals ?? 0) + 1;
    const delay = Math.min(DEFER_CAP_MS, DEFER_BASE_MS * 2 ** (w.deferrals - 1));
    if (w.deferrals === 5) {
      this.logger.warn(`Completion of action ${w.item.actionId} is waiting: its group is locked by an open enqueue transaction`);
    }
    setTimeout(() => {
      this.queue.push(w);
      this.scheduleFlush(workerId);
    }, delay);
  }

  private async write(workerId: string, items: AttemptToFinish[]): Promise<{ recorded: Set<string>; deferred: Set<string> }> {
    const ids: string[] = [],
      attempts: number[] = [],
      statuses: string[] = [],
      results: (string | null)[] = [];
    const errors: (string | null)[] = [],
      delays: number[] = [],
      outcomes: string[] = [];
    for (const { actionId, attempt, end } of items) {
      ids.push(actionId);
      attempts.push(attempt);
      switch (end.kind) {
        case 'done':
          statuses.push('done');
          results.push(end.resultJson);
          errors.push(null);
          delays.push(0);
          outcomes.push('done');
          break;
        case 'retry':
          statuses.push('pending');
          results.push(null);
          errors.push(end.error);
          delays.push(end.delayMs);
          outcomes.push('error');
          break;
        case 'failed':
          statuses.push('failed');
          results.push(null);
          errors.push(end.error);
          delays.push(0);
          outcomes.push('error');
          break;
        case 'released':
          statuses.push('pending');
          results.push(null);
          errors.push(end.error);
          delays.push(0);
          outcomes.push('released');
          break;
      }
    }
    const handoff = this.handoff;
    const types = handoff?.types() ?? [];
    const grant = handoff && types.length > 0 ? handoff.reserve(items.length) : null;
    let rows: FinishAttemptsRow[];
    try {
      ({ rows } = await this.pool.query<FinishAttemptsRow>({
        ...FINISH_ATTEMPTS_SQL,
        values: [workerId, ids, attempts, statuses, results, errors, delays, outcomes, types, handoff?.leaseMs ?? 0, grant?.claim ? grant.slots : 0],
      }));
    } catch (error) {
      if (grant) handoff!.release(grant, null);
      throw error;
    }
    const recorded = new Set<string>();
    const deferred = new Set<string>();
    const claimed: ClaimedActionRow[] = [];
    for (const r of rows) {
      if (r.kind === 'finished') recorded.add(`${r.id}:${r.attempt}`);
      else if (r.kind === 'deferred') deferred.add(`${r.id}:${r.attempt}`);
      else claimed.push(toClaimedRow(r));
    }
    if (grant) handoff!.release(grant, claimed.length);
    if (claimed.length > 0) {
      if (handoff) handoff.accept(claimed);
      else this.logger.error(`Handed-off actions with no receiver: ${claimed.map((c) => c.id).join(', ')}; the reaper will return them`);
    }
    return { recorded, deferred };
  }
}

function toClaimedRow(r: FinishAttemptsRow): ClaimedActionRow {
  return {
    id: r.id,
    lock_id: r.lock_id,
    type: r.type as string,
    payload: r.payload ?? {},
    attempts: r.attempt,
    max_attempts: r.max_attempts as number,
    on_failure: r.on_failure ?? 'block',
    run_at: new Date(),
    created_at: r.created_at as Date,
    idempotency_key: r.idempotency_key,
    lease_expires_at: new Date(),
  };
}
