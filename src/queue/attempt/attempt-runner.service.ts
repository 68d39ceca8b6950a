import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { ActionContext, QueuedAction } from '../../handlers/action-context.interface';
import { ActionHandlersRegistry, RegisteredHandler } from '../../handlers/action-handlers.registry';
import { HandlerTimeoutError } from '../../handlers/handler-timeout.error';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { BackOffRequest, backOffRequested, throwBackOff } from '../../handlers/retry-after.error';
import { CancelRequestedError, LeaseExpiringError, LeaseLostError, NotAloneError, ShutdownError, StrayHandlerError } from '../instance/abort-reasons';
import { AttemptEnd } from './attempt-end';
import { fullJitterBackoffMs } from './backoff';
import { HandlerStop } from '../instance/handler-stop';
import { attemptContext } from '../containment/attempt-context';
import { WatchdogSharedState } from '../containment/watchdog-shared-state';
import { toResultJson } from '../outcome/handler-result';
import { chunkEnds, EndOf } from './chunk-ends';
import { ChunkHandlerHost, isChunkHandler } from '../../handlers/chunk-handler.host';
import { HandlerThreads, ThreadRetiredError, ThreadTaskError } from '../isolation/handler-threads.service';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { describeThrown, isPermanentFailure } from '../outcome/thrown-value';
import { WORKER_ID } from '../instance/worker-id.token';
import { waitAtMost } from '../../wait-at-most';

/** Longest wait for a handler to stop after a cancel or shutdown abort, before giving up on it (ms). */
const MAX_ABORT_GRACE_MS = 2_000;

/**
 * How long a handler gets to stop after a cancel or shutdown abort before its
 * attempt ends without it (ms): a third of the lease, at most 2 s.
 *
 * @param leaseMs the LEASE_MS setting (ms).
 */
export function abortGraceMs(leaseMs: number): number {
  return Math.min(MAX_ABORT_GRACE_MS, Math.floor(leaseMs / 3));
}

/** After any other abort, how long a handler that honours its signal gets to return before it counts as stuck (ms). */
const SETTLE_GRACE_MS = 50;
const SETTLED: Promise<void> = Promise.resolve();
/** Delay before an action released with its handler still running may run again (ms): time for this process to exit. */
const STUCK_RELEASE_DELAY_MS = 2_000;

/** How a handler's promise settled. */
type HandlerOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How a handler run ended: settled first, or aborted first (then how it settled within the grace, if it did). */
type Driven =
  | { aborted: false; outcome: HandlerOutcome; settled: Promise<void>; settledAtEnd: true }
  | { aborted: true; reason: unknown; stray: unknown; settled: Promise<void>; settledAtEnd: boolean; outcome: HandlerOutcome | undefined };

/** How the attempts of a chunk ended (see AttemptRun). */
export interface ChunkRun {
  /** One per row of the chunk, in its order; null: nothing to record for it. */
  ends: (AttemptEnd | null)[];
  settled: Promise<void>;
  settledAtEnd: boolean;
  cause: unknown;
}

/** How an attempt ended, and when its handler's promise settles. */
export interface AttemptRun {
  /** null: nothing to record (the lease was lost, or it must expire: a cancelled handler that did not stop). */
  end: AttemptEnd | null;
  /** Resolves when the handler's promise settles (at once for a handler that returned). */
  settled: Promise<void>;
  /** Whether it had settled when the attempt ended. */
  settledAtEnd: boolean;
  /** The error the handler threw or left behind, for the log (null when done). */
  cause: unknown;
}

/**
 * How long a handler thread may take to load and build its handler before
 * the attempt's timeout starts counting anyway (ms): a cold thread loads the
 * handler's file and its Nest module (most of a second on a small machine),
 * which is not the handler's time; a thread that never gets there still ends.
 */
const THREAD_START_ALLOWANCE_MS = 30_000;

/**
 * Runs one attempt of one leased action and says how it ended. The handler
 * runs outside any transaction, in this process (inside the attempt's async
 * context, so stray errors are charged to it) or, with `isolation: 'thread'`,
 * in a worker thread. The attempt ends when the handler settles or, sooner,
 * when its signal aborts:
 * - timeout (`timeoutMs`) or a stray error: at once, as a charged failure
 *   (retried while the budget lasts); a handler that ignores its signal is
 *   left running (its slot stays taken) and its late result is discarded;
 *   with `isolation: 'thread'`, every end but the handler's own settling
 *   waits for its thread to exit (terminated), so it ends with the handler;
 * - shutdown: released once the handler stops (at most about 2 s);
 * - cancellation: `cancelled` once the handler stops; if it does not, nothing
 *   is recorded and the lease, no longer renewed, expires (then `cancelled`);
 * - self-fencing: released (if the database can still be reached), except a
 *   suspect's attempt, or one whose instance's event loop stalled so that
 *   its lease could not be renewed: left to expire, a loss (poison detection);
 * - lease lost: nothing is recorded (another attempt owns the action).
 */
@Injectable()
export class AttemptRunner {
  private readonly logger = new Logger(AttemptRunner.name);
  private readonly abortGraceMs: number;
  /**
   * Whether handlers run inside their attempt's async context, for the
   * StrayErrorGuard to charge a stray error to its action. Off with
   * STRAY_ERROR_POLICY=off: AsyncLocalStorage makes Node run a hook for every
   * promise, which costs a few per cent of CPU with instant handlers.
   */
  private readonly attributeStrayErrors: boolean;

  constructor(
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly registry: ActionHandlersRegistry,
    private readonly threads: HandlerThreads,
    private readonly watchdog: WatchdogSharedState,
  ) {
    this.abortGraceMs = abortGraceMs(settings.LEASE_MS);
    this.attributeStrayErrors = settings.STRAY_ERROR_POLICY !== 'off';
  }

  /**
   * @param row the leased action (its attempt number is the fencing token).
   * @param handlerStop tells the handler to stop; the caller's LeaseKeeper uses it too.
   * @param startWhen when given, the attempt is a suspect's (SuspectRunner) and
   *   the handler starts only once it resolves to null; an Error it resolves
   *   to, or a stop before, ends the attempt unstarted with that reason.
   * @returns how the attempt ended; never rejects.
   */
  async run(row: LeasedActionRow, handlerStop: HandlerStop, startWhen?: Promise<Error | null>): Promise<AttemptRun> {
    const registered = this.registry.get(row.type);
    if (!registered) {
      const error = new PermanentFailureError(`no handler registered for type "${row.type}"`);
      return { end: this.failureEnd(row, error, 'error'), settled: SETTLED, settledAtEnd: true, cause: error };
    }
    if (startWhen) {
      const stopped = new Promise<unknown>((resolve) => (handlerStop.stopped ? resolve(handlerStop.signal.reason) : handlerStop.onStop(resolve)));
      const reason = await Promise.race([startWhen, stopped]);
      if (reason !== null) {
        handlerStop.stop(reason as Error);
        // Never started: released, whatever stalled (it ran nothing to blame).
        return {
          end: this.abortEnd(row, handlerStop.signal.reason, true, undefined, false, false),
          settled: SETTLED,
          settledAtEnd: true,
          cause: handlerStop.signal.reason,
        };
      }
    }
    const driven = await this.drive(registered, row, handlerStop, (signal, onStray, onThreadStarted) =>
      this.invoke(registered, row, signal, onStray, onThreadStarted),
    );
    const { settled, settledAtEnd } = driven;
    if (driven.aborted) {
      return {
        end: this.abortEnd(row, driven.reason, settledAtEnd, driven.stray, startWhen !== undefined),
        settled,
        settledAtEnd,
        cause: driven.stray ?? driven.reason,
      };
    }
    if (driven.outcome.ok) {
      try {
        return { end: { kind: 'done', outcome: 'done', resultJson: toResultJson(driven.outcome.value) }, settled, settledAtEnd: true, cause: null };
      } catch (error) {
        return { end: this.failureEnd(row, error, 'error'), settled, settledAtEnd: true, cause: error };
      }
    }
    const error = driven.outcome.error;
    return { end: this.thrownEnd(row, error), settled, settledAtEnd: true, cause: error };
  }

  /**
   * Runs one attempt of each action of an ordered chunk with one call of its
   * handler's handleChunk, and says how each ended (ChunkHandlerHost has the
   * rules; chunk-ends.ts applies them).
   * @param rows the chunk: the group's head, then its members, ids ascending.
   * @param handlerStop tells the handler to stop; shared by the leases of every row.
   * @returns one end per row (null: record nothing for it); never rejects.
   */
  async runChunk(rows: LeasedActionRow[], handlerStop: HandlerStop): Promise<ChunkRun> {
    const head = rows[0];
    const registered = this.registry.get(head.type);
    if (!registered || !isChunkHandler(registered.instance)) {
      const error = new PermanentFailureError(`no chunk handler registered for type "${head.type}"`);
      return {
        ends: chunkEnds(rows, { kind: 'threw', end: this.failureEnd(head, error, 'error') }, this.endOf),
        settled: SETTLED,
        settledAtEnd: true,
        cause: error,
      };
    }
    const driven = await this.drive(registered, head, handlerStop, (signal, onStray, onThreadStarted) =>
      this.invokeChunk(registered, rows, signal, onStray, onThreadStarted),
    );
    const { settled, settledAtEnd } = driven;
    if (driven.aborted) {
      const reason = driven.reason;
      const headEnd = this.abortEnd(head, reason, settledAtEnd, driven.stray);
      // A chunk that returned within the grace keeps what it reported (less a cancelled action).
      const reported = driven.outcome?.ok && headEnd?.kind !== 'failed' && headEnd?.kind !== 'retry' ? driven.outcome.value : undefined;
      const cancelledId = reason instanceof CancelRequestedError ? reason.actionId : undefined;
      // A failure it reported after the stop is the stop (a handler fails what its
      // signal cut short), not the action's: released and uncharged, as a stopped
      // single action is (the stop here is a release or a cancel, never a timeout).
      const stoppedEndOf: EndOf = (row, outcome) =>
        outcome.ok ? this.endOf(row, outcome) : { kind: 'released', outcome: 'released', error: describeThrown(reason).message, delayMs: 0 };
      const ends =
        headEnd === null
          ? rows.map(() => null)
          : reported !== undefined
            ? chunkEnds(rows, { kind: 'reported', value: reported, cancelledId }, stoppedEndOf)
            : chunkEnds(rows, { kind: 'aborted', end: headEnd, cancelledId }, this.endOf);
      return { ends, settled, settledAtEnd, cause: driven.stray ?? reason };
    }
    if (driven.outcome.ok) {
      return { ends: chunkEnds(rows, { kind: 'reported', value: driven.outcome.value }, this.endOf), settled, settledAtEnd: true, cause: null };
    }
    const error = driven.outcome.error;
    return { ends: chunkEnds(rows, { kind: 'threw', end: this.thrownEnd(head, error) }, this.endOf), settled, settledAtEnd: true, cause: error };
  }

  /** How one action of a chunk ended, from the outcome its handler reported (the rules of a single attempt). */
  private readonly endOf = (row: LeasedActionRow, outcome: { ok: true; result?: unknown } | { ok: false; error: unknown }): AttemptEnd => {
    if (!outcome.ok) return this.thrownEnd(row, outcome.error);
    try {
      return { kind: 'done', outcome: 'done', resultJson: toResultJson(outcome.result) };
    } catch (error) {
      return this.failureEnd(row, error, 'error');
    }
  };

  /** How an attempt whose handler threw (or reported) `error` ends: released for a retired thread, backed off when asked, else a charged failure. */
  private thrownEnd(row: LeasedActionRow, error: unknown): AttemptEnd {
    if (isThreadRetired(error)) return { kind: 'released', outcome: 'released', error: (error as ThreadRetiredError).message, delayMs: 0 };
    const backOff = backOffRequested(error) ?? threadBackOff(error);
    if (backOff) {
      const { message } = describeThrown(error);
      const end: AttemptEnd = { kind: 'released', outcome: 'backed_off', error: message, delayMs: backOff.ms };
      if (backOff.wholeType) end.pauseTypeMs = backOff.ms;
      return end;
    }
    return this.failureEnd(row, error, 'error');
  }

  /**
   * Starts a handler and waits for it to settle or, sooner, for its signal
   * to abort (the timeout, a stray error, a lease lost or expiring, a
   * cancel, shutdown); after an abort, waits the grace for it to settle
   * (for a thread-isolated handler: until its thread has exited).
   */
  private async drive(
    registered: RegisteredHandler,
    row: LeasedActionRow,
    handlerStop: HandlerStop,
    start: (signal: AbortSignal, onStray: (error: unknown) => boolean, onThreadStarted: () => void) => Promise<unknown>,
  ): Promise<Driven> {
    let stray: unknown;
    let ended = false;
    const signal = handlerStop.signal;
    const timeoutMs = registered.options.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    /** (Re)starts the timeout: `timeoutMs` from the handler's start, plus `allowanceMs` for a thread to get there. */
    const startTimeout = (allowanceMs: number) => {
      clearTimeout(timer);
      if (timeoutMs && !ended) timer = setTimeout(() => handlerStop.stop(new HandlerTimeoutError(timeoutMs)), timeoutMs + allowanceMs);
    };
    startTimeout(registered.options.isolation === 'thread' ? THREAD_START_ALLOWANCE_MS : 0);
    let settledAtEnd = false;
    let settledWith: HandlerOutcome | undefined;
    const outcome = start(
      signal,
      (error) => {
        if (ended || signal.aborted) return false;
        stray = error;
        handlerStop.stop(new StrayHandlerError(describeThrown(error).message));
        return true;
      },
      () => startTimeout(0),
    ).then(
      (value) => ((settledAtEnd = true), (settledWith = { ok: true as const, value })),
      (error: unknown) => ((settledAtEnd = true), (settledWith = { ok: false as const, error })),
    );
    // The handler's outcome or an abort, whichever comes first (one promise, one listener).
    const first = await new Promise<HandlerOutcome | 'aborted'>((resolve) => {
      void outcome.then(resolve);
      if (signal.aborted) resolve('aborted');
      else handlerStop.onStop(() => resolve('aborted'));
    });
    clearTimeout(timer);
    ended = true;
    if (first === 'aborted' || signal.aborted) {
      const reason: unknown = signal.reason;
      const settled = outcome.then(() => undefined);
      // A thread-isolated handler settles once its thread has exited
      // (HandlerThreads): waited for in full, however long, so that its code
      // never runs beside the next attempt of its group (G2). The lease is
      // renewed meanwhile. A handler in this process cannot be stopped: it gets a grace.
      if (registered.options.isolation === 'thread') await settled;
      else await waitAtMost(settled, reason instanceof ShutdownError || reason instanceof CancelRequestedError ? this.abortGraceMs : SETTLE_GRACE_MS);
      return { aborted: true, reason, stray, settled, settledAtEnd, outcome: settledWith };
    }
    return { aborted: false, outcome: first, settled: SETTLED, settledAtEnd: true };
  }

  /** Starts the handler; a synchronous throw becomes a rejection. */
  private invoke(
    registered: RegisteredHandler,
    row: LeasedActionRow,
    signal: AbortSignal,
    onStray: (error: unknown) => boolean,
    onThreadStarted: () => void,
  ): Promise<unknown> {
    const action = toQueuedAction(row);
    if (registered.options.isolation === 'thread') return this.threads.run(registered, action, this.workerId, signal, onThreadStarted);
    const ctx = this.contextFor(row, signal);
    // The watchdog attributes a stall to this action while its synchronous part runs.
    this.watchdog.enterHandler(row.id);
    try {
      if (!this.attributeStrayErrors) return Promise.resolve(registered.instance.handle(action, ctx));
      const store = { actionId: row.id, type: row.type, attempt: row.attempts, strayError: onStray };
      return Promise.resolve(attemptContext.run(store, () => registered.instance.handle(action, ctx)));
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.watchdog.leaveHandler();
    }
  }

  /** Starts a chunk handler (in this process or its thread); a synchronous throw becomes a rejection. */
  private invokeChunk(
    registered: RegisteredHandler,
    rows: LeasedActionRow[],
    signal: AbortSignal,
    onStray: (error: unknown) => boolean,
    onThreadStarted: () => void,
  ): Promise<unknown> {
    const actions = rows.map(toQueuedAction);
    if (registered.options.isolation === 'thread') return this.threads.runChunk(registered, actions, this.workerId, signal, onThreadStarted);
    const head = rows[0];
    const ctx = this.contextFor(head, signal, rows.length);
    const handler = registered.instance as ChunkHandlerHost;
    this.watchdog.enterHandler(head.id);
    try {
      if (!this.attributeStrayErrors) return Promise.resolve(handler.handleChunk(actions, ctx));
      const store = { actionId: head.id, type: head.type, attempt: head.attempts, strayError: onStray };
      return Promise.resolve(attemptContext.run(store, () => handler.handleChunk(actions, ctx)));
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.watchdog.leaveHandler();
    }
  }

  private contextFor(row: LeasedActionRow, signal: AbortSignal, chunkSize = 1): ActionContext {
    return {
      signal,
      attempt: row.attempts,
      workerId: this.workerId,
      backOff: throwBackOff,
      // Built on first use: most handlers never log, and a Logger per attempt
      // showed up in the profile of quick handlers.
      get logger(): Logger {
        const what = chunkSize > 1 ? `chunk of ${chunkSize} from action ${row.id}` : `action ${row.id}`;
        const logger = new Logger(`${what} (${row.type}, lock ${row.lock_id ?? '-'}, attempt ${row.attempts})`);
        Object.defineProperty(this, 'logger', { value: logger });
        return logger;
      },
    };
  }

  /**
   * What to record for an attempt its signal stopped, or null to record
   * nothing (the lease is gone, or is left to expire).
   * @param quarantined the attempt is a suspect's (docs/guarantees.md, poison detection).
   * @param started its handler was started (false: a suspect's attempt stopped while it waited to start).
   */
  private abortEnd(row: LeasedActionRow, reason: unknown, settled: boolean, stray: unknown, quarantined = false, started = true): AttemptEnd | null {
    if (reason instanceof LeaseLostError) return null;
    // A suspect whose instance could not keep it leased, or any attempt whose
    // renewals failed while its instance's event loop stalled: a loss with
    // its instance, not a release. Left to expire, the reaper counts it as one
    // (poison detection, 047-singled-losses.up.sql; a suspect's is charged);
    // found in an out-of-memory spiral, whose stalls beat the watchdog to it.
    if (reason instanceof LeaseExpiringError && started && (quarantined || reason.loopStalledMs !== null)) return null;
    if (reason instanceof HandlerTimeoutError) return this.failureEnd(row, reason, 'timeout');
    if (reason instanceof StrayHandlerError) return this.failureEnd(row, stray ?? reason, 'error');
    const { message } = describeThrown(reason);
    if (reason instanceof CancelRequestedError) return settled ? { kind: 'cancelled', outcome: 'cancelled', error: message } : null;
    if (reason instanceof ShutdownError || reason instanceof LeaseExpiringError || reason instanceof NotAloneError) {
      return { kind: 'released', outcome: 'released', error: message, delayMs: settled ? 0 : STUCK_RELEASE_DELAY_MS };
    }
    return this.failureEnd(row, reason, 'error');
  }

  /** A charged failure: retried with backoff while the budget lasts, else failed. */
  private failureEnd(row: LeasedActionRow, error: unknown, outcome: 'error' | 'timeout'): AttemptEnd {
    const permanent = isPermanentFailure(error) || isPermanentThreadError(error);
    const { message, stack } = describeThrown(error);
    const charged = row.charged_attempts + 1;
    if (permanent || charged >= row.max_attempts) return { kind: 'failed', outcome, error: message, stack };
    const registered = this.registry.get(row.type);
    const base = registered?.options.backoffBaseMs ?? this.settings.RETRY_BACKOFF_BASE_MS;
    const cap = registered?.options.backoffCapMs ?? this.settings.RETRY_BACKOFF_CAP_MS;
    return { kind: 'retry', outcome, error: message, stack, delayMs: fullJitterBackoffMs(charged, base, cap) };
  }
}

/** The back-off a handler thread's RetryAfterError asked for, or null. */
function threadBackOff(error: unknown): BackOffRequest | null {
  try {
    return error instanceof ThreadTaskError ? error.backOff : null;
  } catch {
    return null; // `instanceof` runs a Proxy's getPrototypeOf trap, which may throw
  }
}

/** Whether a handler thread said its error is permanent; false for anything else, a hostile value included. */
function isPermanentThreadError(error: unknown): boolean {
  try {
    return error instanceof ThreadTaskError && error.permanent;
  } catch {
    return false; // `instanceof` runs a Proxy's getPrototypeOf trap, which may throw
  }
}

/** Whether a thread-isolated attempt's thread retired under it (another action's stray error); false for anything else, a hostile value included. */
function isThreadRetired(error: unknown): boolean {
  try {
    return error instanceof ThreadRetiredError;
  } catch {
    return false; // `instanceof` runs a Proxy's getPrototypeOf trap, which may throw
  }
}

function toQueuedAction(row: LeasedActionRow): QueuedAction {
  return {
    id: row.id,
    lockId: row.lock_id,
    type: row.type,
    payload: row.payload,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    onFailure: row.on_failure,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
  };
}
