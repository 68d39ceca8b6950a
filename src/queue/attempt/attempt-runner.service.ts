import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { isChunkHandler } from '../../handlers/chunk-handler.host';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { WatchdogSharedState } from '../containment/watchdog-shared-state';
import { CancelRequestedError } from '../instance/abort-reasons';
import { HandlerStop } from '../instance/handler-stop';
import { WORKER_ID } from '../instance/worker-id.token';
import { HandlerThreads } from '../isolation/handler-threads.service';
import { toResultJson } from '../outcome/handler-result';
import { describeThrown } from '../outcome/thrown-value';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { AttemptEndRules } from './attempt-end-rules';
import { AttemptRun, ChunkRun } from './attempt-run';
import { chunkEnds, EndOf } from './chunk-ends';
import { HandlerInvoker } from './handler-invoker';
import { TransactionalCompletion } from './transactional-completion';
import { abortGraceMs, driveHandler, SETTLED } from './handler-drive';

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
 * - cancellation: `cancelled` once the handler stops; if it does not within
 *   the grace, nothing is recorded until it returns (then AttemptExecutor
 *   records `cancelled`) or its lease, no longer renewed, expires (then the
 *   reaper does);
 * - self-fencing: released (if the database can still be reached), except a
 *   suspect's attempt, or one whose instance's event loop stalled so that
 *   its lease could not be renewed: left to expire, a loss (poison detection);
 * - lease lost: nothing is recorded (another attempt owns the action).
 *
 * Driving the handler (its timeout, its abort, the grace after) is
 * driveHandler's (handler-drive.ts); starting it is HandlerInvoker's and what
 * each end records, AttemptEndRules'.
 */
@Injectable()
export class AttemptRunner {
  private readonly logger = new Logger(AttemptRunner.name);
  private readonly abortGraceMs: number;
  private readonly ends: AttemptEndRules;
  private readonly invoker: HandlerInvoker;

  constructor(
    @Inject(SETTINGS) settings: QueueSettings,
    @Inject(WORKER_ID) workerId: string,
    private readonly registry: ActionHandlersRegistry,
    threads: HandlerThreads,
    watchdog: WatchdogSharedState,
  ) {
    this.abortGraceMs = abortGraceMs(settings.LEASE_MS);
    this.ends = new AttemptEndRules(settings, registry);
    // Off with STRAY_ERROR_POLICY=off: no async context per attempt (HandlerInvoker).
    this.invoker = new HandlerInvoker(workerId, threads, watchdog, settings.STRAY_ERROR_POLICY !== 'off');
  }

  /**
   * @param row the leased action (its attempt number is the fencing token).
   * @param handlerStop tells the handler to stop; the caller's LeaseKeeper uses it too.
   * @param startWhen when given, the attempt is a suspect's (SuspectRunner) and
   *   the handler starts only once it resolves to null; an Error it resolves
   *   to, or a stop before, ends the attempt unstarted with that reason.
   * @param completion the attempt's `ctx.transaction`; once it has committed,
   *   the attempt ended `done` with its result, whatever the handler did after.
   * @returns how the attempt ended; never rejects.
   */
  async run(row: LeasedActionRow, handlerStop: HandlerStop, startWhen?: Promise<Error | null>, completion?: TransactionalCompletion): Promise<AttemptRun> {
    const run = await this.runUncommitted(row, handlerStop, startWhen, completion);
    completion?.close();
    if (!completion?.committed) return run;
    // Recorded already, in the handler's transaction: a later throw or abort changes nothing.
    const end = { kind: 'done' as const, outcome: 'done' as const, resultJson: completion.resultJson ?? 'null' };
    return { ...run, end, cause: null, recordedInTransaction: true };
  }

  private async runUncommitted(
    row: LeasedActionRow,
    handlerStop: HandlerStop,
    startWhen?: Promise<Error | null>,
    completion?: TransactionalCompletion,
  ): Promise<AttemptRun> {
    const registered = this.registry.get(row.type);
    if (!registered) {
      const error = new PermanentFailureError(`no handler registered for type "${row.type}"`);
      return { end: this.ends.failure(row, error, 'error'), settled: SETTLED, settledAtEnd: true, cause: error };
    }
    if (startWhen) {
      const stopped = new Promise<unknown>((resolve) => (handlerStop.stopped ? resolve(handlerStop.signal.reason) : handlerStop.onStop(resolve)));
      const reason = await Promise.race([startWhen, stopped]);
      if (reason !== null) {
        handlerStop.stop(reason as Error);
        // Never started: released, whatever stalled (it ran nothing to blame).
        return {
          end: this.ends.aborted(row, handlerStop.signal.reason, true, undefined, false, false),
          settled: SETTLED,
          settledAtEnd: true,
          cause: handlerStop.signal.reason,
        };
      }
    }
    const driven = await driveHandler(registered, handlerStop, this.abortGraceMs, (signal, onStray, onThreadStarted) =>
      this.invoker.invoke(registered, row, signal, onStray, onThreadStarted, completion),
    );
    const { settled, settledAtEnd } = driven;
    if (driven.aborted) {
      return {
        end: this.ends.aborted(row, driven.reason, settledAtEnd, driven.stray, startWhen !== undefined),
        settled,
        settledAtEnd,
        cause: driven.stray ?? driven.reason,
      };
    }
    if (driven.outcome.ok) {
      try {
        return { end: { kind: 'done', outcome: 'done', resultJson: toResultJson(driven.outcome.value) }, settled, settledAtEnd: true, cause: null };
      } catch (error) {
        return { end: this.ends.failure(row, error, 'error'), settled, settledAtEnd: true, cause: error };
      }
    }
    const error = driven.outcome.error;
    return { end: this.ends.thrown(row, error), settled, settledAtEnd: true, cause: error };
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
        ends: chunkEnds(rows, { kind: 'threw', end: this.ends.failure(head, error, 'error') }, this.ends.endOf),
        settled: SETTLED,
        settledAtEnd: true,
        cause: error,
      };
    }
    const driven = await driveHandler(registered, handlerStop, this.abortGraceMs, (signal, onStray, onThreadStarted) =>
      this.invoker.invokeChunk(registered, rows, signal, onStray, onThreadStarted),
    );
    const { settled, settledAtEnd } = driven;
    if (driven.aborted) {
      const reason = driven.reason;
      const headEnd = this.ends.aborted(head, reason, settledAtEnd, driven.stray);
      // A chunk that returned within the grace keeps what it reported (less a cancelled action).
      const reported = driven.outcome?.ok && headEnd?.kind !== 'failed' && headEnd?.kind !== 'retry' ? driven.outcome.value : undefined;
      const cancelledId = reason instanceof CancelRequestedError ? reason.actionId : undefined;
      // A failure it reported after the stop is the stop (a handler fails what its
      // signal cut short), not the action's: released and uncharged, as a stopped
      // single action is (the stop here is a release or a cancel, never a timeout).
      const stoppedEndOf: EndOf = (row, outcome) =>
        outcome.ok ? this.ends.endOf(row, outcome) : { kind: 'released', outcome: 'released', error: describeThrown(reason).message, delayMs: 0 };
      const ends =
        headEnd === null
          ? rows.map(() => null)
          : reported !== undefined
            ? chunkEnds(rows, { kind: 'reported', value: reported, cancelledId }, stoppedEndOf)
            : chunkEnds(rows, { kind: 'aborted', end: headEnd, cancelledId }, this.ends.endOf);
      return { ends, settled, settledAtEnd, cause: driven.stray ?? reason };
    }
    if (driven.outcome.ok) {
      return { ends: chunkEnds(rows, { kind: 'reported', value: driven.outcome.value }, this.ends.endOf), settled, settledAtEnd: true, cause: null };
    }
    const error = driven.outcome.error;
    return { ends: chunkEnds(rows, { kind: 'threw', end: this.ends.thrown(head, error) }, this.ends.endOf), settled, settledAtEnd: true, cause: error };
  }
}
