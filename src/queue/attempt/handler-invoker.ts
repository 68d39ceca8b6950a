import { Logger } from '@nestjs/common';
import { ActionContext, QueuedAction } from '../../handlers/action-context.interface';
import { RegisteredHandler } from '../../handlers/action-handlers.registry';
import { ChunkHandlerHost } from '../../handlers/chunk-handler.host';
import { throwBackOff } from '../../handlers/retry-after.error';
import { attemptContext } from '../containment/attempt-context';
import { WatchdogSharedState } from '../containment/watchdog-shared-state';
import { HandlerThreads } from '../isolation/handler-threads.service';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { refusedGroupState, refuseTransaction } from '../../handlers/refused-context';
import { TransactionalCompletion } from './transactional-completion';

/** Called with an error a handler left uncaught (a stray error); returns whether it was charged to this attempt. */
export type OnStray = (error: unknown) => boolean;

/**
 * Starts a handler's `handle` (or a chunk handler's `handleChunk`) with its
 * ActionContext: in this process, inside the attempt's async context (so the
 * StrayErrorGuard charges a stray error to it) and marked for the event-loop
 * watchdog while its synchronous part runs; or, with `isolation: 'thread'`,
 * in a handler thread (HandlerThreads). Waiting for it and ending the
 * attempt are the AttemptRunner's.
 */
export class HandlerInvoker {
  /**
   * @param workerId this instance's id (`ctx.workerId`).
   * @param attributeStrayErrors whether handlers run inside their attempt's
   *   async context (off with STRAY_ERROR_POLICY=off: AsyncLocalStorage makes
   *   Node run a hook for every promise, a few per cent of CPU with instant handlers).
   */
  constructor(
    private readonly workerId: string,
    private readonly threads: HandlerThreads,
    private readonly watchdog: WatchdogSharedState,
    private readonly attributeStrayErrors: boolean,
  ) {}

  /**
   * Starts the handler of one action; a synchronous throw becomes a rejection.
   * @param onThreadStarted called once a handler thread has built the handler (its timeout counts from then).
   * @param completion the attempt's `ctx.transaction` (absent: it refuses every call).
   * @returns the handler's promise (its result, or its error as a rejection).
   */
  invoke(
    registered: RegisteredHandler,
    row: LeasedActionRow,
    signal: AbortSignal,
    onStray: OnStray,
    onThreadStarted: () => void,
    completion?: TransactionalCompletion,
  ): Promise<unknown> {
    const action = toQueuedAction(row);
    if (registered.options.isolation === 'thread') return this.threads.run(registered, action, this.workerId, signal, onThreadStarted);
    const ctx = this.contextFor(row, signal, 1, completion);
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

  /**
   * Starts a chunk handler (in this process or its thread) on `rows`, the
   * group's head first; a synchronous throw becomes a rejection.
   * @returns the handler's promise (what it reported, or its error as a rejection).
   */
  invokeChunk(registered: RegisteredHandler, rows: LeasedActionRow[], signal: AbortSignal, onStray: OnStray, onThreadStarted: () => void): Promise<unknown> {
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

  private contextFor(row: LeasedActionRow, signal: AbortSignal, chunkSize = 1, completion?: TransactionalCompletion): ActionContext {
    return {
      signal,
      attempt: row.attempts,
      workerId: this.workerId,
      backOff: throwBackOff,
      transaction: completion ? (work) => completion.run(work) : refuseTransaction(chunkSize > 1 ? 'a chunk handler' : 'this attempt'),
      groupState: completion ? completion.groupState : refusedGroupState(chunkSize > 1 ? 'a chunk handler' : 'this attempt'),
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
}

/** The handler's view of a leased row. */
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
