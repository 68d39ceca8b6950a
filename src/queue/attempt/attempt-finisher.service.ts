import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { StatementNaming, statementNaming, timedQuery } from '../../database/timed-query';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { ATTEMPT_END_EFFECTS, AttemptToFinish } from './attempt-end';
import { LeaseTiming } from '../instance/lease-timing';
import { LEASE_TIMING } from '../instance/lease-timing.token';
import { monotonicNow } from '../instance/monotonic-clock';
import { FINISH_CHUNKS_SQL, FINISH_CHUNKS_TRACED_SQL, FinishAttemptsRow } from '../sql/finish-attempts.sql';
import { fillLateTraceparents } from '../sql/leased-action.sql';
import { tracingEnabled } from '../../tracing/tracing-enabled';
import { groupIntoUnits, LeasedUnit } from '../instance/leased-units';
import { WORKER_ID } from '../instance/worker-id.token';
import { SlotGrant, WorkerSlots } from '../instance/worker-slots';

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
/**
 * Most attempts written by one statement. With MAX_FLUSHERS statements in
 * flight, four batches of 128 cover the benchmark's 512 slots, so a full
 * turnover is shared by every statement instead of one statement taking it
 * all (at 256, and with one statement in flight, "the first statement took
 * the whole batch, so there was rarely a second": bench/README.md, "What was
 * tried"; four of 128 gained 34-42 %: "Figures on this machine"). At
 * the 110-150 µs of server time a finished grouped action costs here
 * (bench/README.md, "Why the targets fail here") a full batch is about
 * 14-19 ms of work, inside the shortest client-side statement timeout
 * (lease-timing.ts: 32 ms at the smallest LEASE_MS, 100).
 */
const MAX_BATCH = 128;
/** Pause between tries of a failed write (ms), doubled up to the cap. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 2_000;
/** First pause before re-sending a deferred attempt (ms), doubled up to the cap. */
const DEFER_BASE_MS = 20;
const DEFER_CAP_MS = 1_000;
/**
 * The deferral of one attempt that logs a warning: the fifth, after
 * 20 + 40 + 80 + 160 = 300 ms of pauses (DEFER_BASE_MS doubled). An enqueue
 * transaction commits in milliseconds, so one that has held a group that long
 * is worth a line; a warning on the first would log each brief overlap of a
 * producer with a completion, which deferring handles by design.
 */
const DEFERRALS_BEFORE_WARNING = 5;

/** What recording an attempt gave: whether it was recorded, and the actions its statement took for this worker. */
export interface FinishResult {
  /** false: fenced (the lease was lost) or abandoned (shutting down, the database stayed away until the lease could expire). */
  recorded: boolean;
  /** For each attempt of the unit, in the order given: whether it was recorded (a chunk's members are fenced one by one). */
  recordedEach: boolean[];
  /** Hand-offs and claims of the statement that recorded it, as units (each has its slot reserved already). */
  next: LeasedUnit[];
  /** When that statement was sent (monotonic ms): the leases of `next` last at least LEASE_MS from then. */
  sentAt: number;
}

interface Waiting {
  /** One attempt, or the attempts of one chunk (written by one statement, deferred together). */
  items: AttemptToFinish[];
  /** Whether its slot frees when it is recorded (its handler has returned). */
  freesSlot: boolean;
  /** The lease's local deadline (monotonic ms): during shutdown, a write that keeps failing is abandoned after it. */
  deadline: () => number;
  /** A write of it failed once; only then does the deadline apply (the fence, not the local clock, decides). */
  failed?: boolean;
  /** Times the database deferred it (its group was held by a producer). */
  deferrals?: number;
  /** Its caller cannot start work (finishDetached): it never receives what a statement took. */
  detached?: boolean;
  resolve: (result: FinishResult) => void;
}

/**
 * Records ended attempts (aq_finish_attempts, one statement and one commit per
 * batch). Attempts that end while a write is in flight share the next
 * statement, so under load one commit ends many attempts; the statement also
 * takes, for the slots the batch frees, the next head of each group it
 * released (hand-off) and more claimable actions. A write that fails or times
 * out (client side, lease-timing.ts) is sent again with backoff (it is
 * idempotent and fenced) until the database answers: an outage this instance
 * survives never makes a finished action run again. Only when the lease was
 * really lost meanwhile (reaped after it expired, another attempt started)
 * does the fence refuse it (`recorded: false`). During shutdown a write is
 * given up once its lease could have expired (see abandonExpired).
 */
@Injectable()
export class AttemptFinisher {
  private readonly logger = new Logger(AttemptFinisher.name);
  private readonly naming: StatementNaming;
  private readonly maxFlushers: number;
  private queue: Waiting[] = [];
  private flushers = 0;
  private flushScheduled = false;
  /** Actions taken by a statement whose attempts were all deferred: the next attempt resolved carries them. */
  private undelivered: { units: LeasedUnit[]; sentAt: number } | null = null;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly registry: ActionHandlersRegistry,
    private readonly slots: WorkerSlots,
    @Inject(LEASE_TIMING) private readonly timing: LeaseTiming,
  ) {
    this.naming = statementNaming(settings.DATABASE_POOLER);
    // Leave half the pool to claims, the reaper and the API.
    this.maxFlushers = Math.max(1, Math.min(MAX_FLUSHERS, Math.floor(settings.DB_POOL_SIZE / 2)));
  }

  /** Attempts waiting to be written, or being written. */
  get pending(): number {
    return this.queue.length + this.flushers;
  }

  /**
   * Queues an attempt's end for writing.
   * @param item the attempt and its end.
   * @param freesSlot whether its handler has returned (its slot can take the next work).
   * @param deadline the lease's local deadline (monotonic ms), read when a write fails.
   * @returns see {@link FinishResult}; never rejects.
   */
  finish(item: AttemptToFinish, freesSlot: boolean, deadline: () => number): Promise<FinishResult> {
    return this.finishUnit([item], freesSlot, deadline);
  }

  /**
   * Queues an attempt's end for writing by a caller that cannot start work
   * (no worker loop waits on it: a cancelled handler that returned after its
   * attempt had ended). Its statement takes nothing for it: a batch of
   * detached ends alone takes no hand-off and no claim, and in a mixed batch
   * what is taken goes to another attempt's executor. An end that carried
   * taken work to a caller that drops it would strand those actions, leased
   * to this worker with their slots reserved, until the release of unknown
   * leases (half a lease later).
   * @returns see {@link finish}; `next` is always empty.
   */
  finishDetached(item: AttemptToFinish, deadline: () => number): Promise<FinishResult> {
    return new Promise((resolve) => {
      this.queue.push({ items: [item], freesSlot: false, deadline, detached: true, resolve });
      this.scheduleFlush();
    });
  }

  /**
   * Queues the ends of one unit's attempts (a chunk's, ids ascending, each
   * with `chunkOf`) for writing by one statement; see {@link finish}.
   * @returns `recorded` when at least one of them was recorded.
   */
  finishUnit(items: AttemptToFinish[], freesSlot: boolean, deadline: () => number): Promise<FinishResult> {
    return new Promise((resolve) => {
      this.queue.push({ items, freesSlot, deadline, resolve });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    // Start on the next turn of the event loop, so that every attempt that ends
    // in this turn (a claimed batch of instant handlers) shares one statement.
    if (this.flushers >= this.maxFlushers || this.flushScheduled) return;
    if (this.flushers > 0 && this.queue.length < PIPELINE_MIN_BATCH) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushers++;
      void this.flush().finally(() => {
        this.flushers--;
        // An attempt queued between the loop's last check and now still gets written.
        if (this.queue.length > 0) this.scheduleFlush();
      });
    });
  }

  private async flush(): Promise<void> {
    let delay = RETRY_BASE_MS;
    while (this.queue.length > 0) {
      // A statement still in flight takes a small remainder when it ends.
      if (this.flushers > 1 && this.queue.length < PIPELINE_MIN_BATCH) break;
      this.abandonExpired();
      const batch = this.queue.splice(0, batchLength(this.queue));
      if (batch.length === 0) break;
      try {
        await this.write(batch);
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

  /**
   * While the instance stops, gives up the writes that kept failing past
   * their lease's local deadline, so that shutdown stays bounded
   * (abortedAttemptsWaitMs). While it runs, never: a live holder retrying its
   * finish still owns its leases (the LeaseKeeper keeps them listed as held and
   * renews them once the database answers, so the release of unknown leases
   * leaves them alone), and the write is fenced in the database, so a late one
   * either lands or is refused because the lease was really lost.
   */
  private abandonExpired(): void {
    if (!this.slots.isPaused('stopping')) return;
    const now = monotonicNow();
    const expired = (w: Waiting) => w.failed === true && w.deadline() <= now;
    for (const w of this.queue.filter(expired)) {
      this.logger.warn(
        `Gave up recording attempt ${w.items[0].attempt} of action ${w.items[0].actionId}${w.items.length > 1 ? ` and ${w.items.length - 1} more of its chunk` : ''}: shutting down, and its lease expired while the database was unreachable`,
      );
      w.resolve({ recorded: false, recordedEach: w.items.map(() => false), next: [], sentAt: now });
    }
    this.queue = this.queue.filter((w) => !expired(w));
  }

  /** One statement for `batch`; resolves each attempt's promise (or re-queues deferred ones). */
  private async write(batch: Waiting[]): Promise<void> {
    const types = this.registry.types();
    const chunking = this.registry.chunking();
    const items = batch.flatMap((w) => w.items);
    // Work is taken only for an attempt whose executor can start it.
    const grant = batch.some((w) => !w.detached) ? this.slots.reserve(batch.filter((w) => w.freesSlot).length) : NOTHING_GRANTED;
    const take = grant.slots > 0 && types.length > 0;
    const sentAt = monotonicNow();
    let rows: FinishAttemptsRow[];
    try {
      const values = [
        this.workerId,
        ...columnsOf(items),
        take ? types : [],
        this.registry.caps(),
        this.timing.leaseMs,
        grant.claim ? grant.slots : 0,
        items.map((item) => item.chunkOf ?? null),
        chunking.types,
        chunking.max,
      ];
      ({ rows } = await this.pool.query<FinishAttemptsRow>(
        timedQuery(tracingEnabled() ? FINISH_CHUNKS_TRACED_SQL : FINISH_CHUNKS_SQL, values, this.timing.statementTimeoutMs, this.naming),
      ));
    } catch (error) {
      this.slots.settle(grant, 0, null);
      throw error;
    }
    if (tracingEnabled())
      await fillLateTraceparents(
        rows.filter((r) => r.kind === 'claimed'),
        (text, values) => this.pool.query(text, values),
      );
    const recorded = new Set<string>();
    const deferred = new Set<string>();
    const taken = [];
    for (const r of rows) {
      if (r.kind === 'claimed') taken.push(r);
      else (r.kind === 'finished' ? recorded : deferred).add(`${r.id}:${r.attempts}`);
    }
    const next = groupIntoUnits(taken, (type) => this.registry.isChunked(type));
    this.slots.settle(grant, next.length, grant.claim ? grant.slots : 0);
    let carried = next.length > 0 || this.undelivered ? { units: next, sentAt } : null;
    if (carried && this.undelivered) {
      carried = { units: [...this.undelivered.units, ...next], sentAt: this.undelivered.sentAt };
      this.undelivered = null;
    }
    const key = (item: AttemptToFinish) => `${item.actionId}:${item.attempt}`;
    for (const w of batch) {
      if (w.items.some((item) => deferred.has(key(item)))) {
        this.deferLater(w);
        continue;
      }
      // The taken actions go to the first attempt resolved whose executor can start them.
      const recordedEach = w.items.map((item) => recorded.has(key(item)));
      if (w.detached) {
        w.resolve({ recorded: recordedEach.includes(true), recordedEach, next: [], sentAt });
        continue;
      }
      w.resolve({ recorded: recordedEach.includes(true), recordedEach, next: carried?.units ?? [], sentAt: carried?.sentAt ?? sentAt });
      carried = null;
    }
    // Every attempt of this batch was deferred: a later one carries what was taken.
    if (carried) this.undelivered = carried;
  }

  /** Sends a deferred attempt again after a pause (its lease keeps being extended meanwhile). */
  private deferLater(w: Waiting): void {
    w.deferrals = (w.deferrals ?? 0) + 1;
    const delay = Math.min(DEFER_CAP_MS, DEFER_BASE_MS * 2 ** (w.deferrals - 1));
    if (w.deferrals === DEFERRALS_BEFORE_WARNING) {
      this.logger.warn(`Completion of action ${w.items[0].actionId} is waiting: its group is locked by an open enqueue transaction`);
    }
    setTimeout(() => {
      this.queue.push(w);
      this.scheduleFlush();
    }, delay);
  }
}

/** The grant of a statement that takes nothing (every attempt in it detached). */
const NOTHING_GRANTED: SlotGrant = { slots: 0, claim: false, wakeSeq: -1 };

/**
 * How many waiting units the next statement takes: up to MAX_BATCH attempts,
 * a chunk counting each of its actions, and always at least one unit (a
 * chunk is written whole).
 */
function batchLength(queue: Waiting[]): number {
  let attempts = 0;
  let units = 0;
  while (units < queue.length && (units === 0 || attempts + queue[units].items.length <= MAX_BATCH)) attempts += queue[units++].items.length;
  return units;
}

/** The per-attempt array parameters of FINISH_ATTEMPTS_SQL ($2 to $10). */
function columnsOf(items: AttemptToFinish[]): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], [], [], [], [], []];
  for (const { actionId, attempt, end } of items) {
    const effect = ATTEMPT_END_EFFECTS[end.kind];
    const values = [
      actionId,
      attempt,
      effect.nextStatus,
      end.resultJson ?? null,
      end.error ?? null,
      end.stack ?? null,
      end.delayMs ?? 0,
      end.outcome,
      effect.charge,
    ];
    values.forEach((v, i) => columns[i].push(v));
  }
  return columns;
}
