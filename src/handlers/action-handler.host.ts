import { ActionContext, QueuedAction } from './action-context.interface';

/**
 * Base class of every handler. `handle` runs one attempt outside any database
 * transaction. Its return value (JSON-serialisable, or undefined) becomes the
 * action's `result`. Throwing retries the action with backoff while attempts
 * remain; throwing {@link PermanentFailureError} fails it at once.
 * Handlers must be idempotent or use `ctx.attempt` as a fencing token: an
 * attempt may run again after a crash (at-least-once).
 * @publicApi
 */
export abstract class ActionHandlerHost<TResult = unknown> {
  /**
   * Runs one attempt of `action`.
   * @param action the claimed action (ids as strings; `attempt` is 1-based).
   * @param ctx the abort signal, the fencing token, the worker id and a logger.
   * @returns the action's `result` (JSON-serialisable, or undefined).
   * @throws anything to retry with backoff while attempts remain; PermanentFailureError to fail at once.
   */
  abstract handle(action: QueuedAction, ctx: ActionContext): Promise<TResult>;
}
