import { ActionContext, QueuedAction } from './action-context.interface';
import { ActionHandlerHost } from './action-handler.host';

/**
 * How one action of a chunk ended, as {@link ChunkHandlerHost.handleChunk}
 * reports it: `{ ok: true, result }` (done; `result` becomes the action's
 * result) or `{ ok: false, error }` (the error is treated as if `handle` had
 * thrown it for this action alone: retried with backoff while its budget
 * lasts, failed at once for a PermanentFailureError, backed off for a
 * RetryAfterError).
 * @publicApi
 */
export type ChunkOutcome<TResult = unknown> = { ok: true; result?: TResult } | { ok: false; error: unknown };

/** The outcome of an action that is done, with its result. @publicApi */
export function chunkDone<TResult>(result?: TResult): ChunkOutcome<TResult> {
  return { ok: true, result };
}

/** The outcome of an action that failed with `error` (see {@link ChunkOutcome}). @publicApi */
export function chunkFailed(error: unknown): ChunkOutcome<never> {
  return { ok: false, error };
}

/**
 * Base class of a handler that runs ordered chunks: up to `chunk.max`
 * consecutive actions of one group per call (`@ActionHandler({ type, chunk:
 * { max } })`), in id order, under one lease, for consumers that write to a
 * database, call a batch API or aggregate a stream.
 *
 * `handleChunk` returns one outcome per action, in order, and may return
 * fewer (the rest were not reached). What is recorded is what running the
 * actions one at a time would have allowed: the outcomes up to and including
 * the first action that still holds its group (a failure to retry, a failure
 * under `onFailure: 'block'`, a back-off); every action after it is released
 * uncharged and stays pending behind it, whatever was reported for it.
 * Throwing fails the first action (as `handle` throwing would) and releases
 * the rest. Each action's `attempt` is its own fencing token; `ctx.attempt`
 * is the first action's. The signal aborts the whole chunk (a lost lease,
 * the timeout, a cancel of any of its actions, shutdown); a chunk that
 * returns after the abort within the grace still has its outcomes recorded,
 * a cancelled action excepted (it ends `cancelled`).
 * @publicApi
 */
export abstract class ChunkHandlerHost<TResult = unknown> extends ActionHandlerHost<TResult> {
  /**
   * Runs one attempt of each action of a chunk, in order.
   * @param actions 1 to `chunk.max` consecutive actions of one group (ids ascending).
   * @param ctx the abort signal (for the whole chunk), the first action's fencing token, the worker id and a logger.
   * @returns one outcome per action handled, in order (at most `actions.length`).
   * @throws anything: the first action fails (retried while its budget lasts), the rest are released.
   */
  abstract handleChunk(actions: QueuedAction[], ctx: ActionContext): Promise<ChunkOutcome<TResult>[]>;

  /**
   * One action as a chunk of one (the worker always calls handleChunk; this
   * is for callers of the plain handler interface).
   * @throws the action's error when its outcome is a failure.
   */
  async handle(action: QueuedAction, ctx: ActionContext): Promise<TResult> {
    const [outcome] = await this.handleChunk([action], ctx);
    if (!outcome) throw new Error(`handleChunk returned no outcome for action ${action.id}`);
    if (!outcome.ok) throw outcome.error;
    return outcome.result as TResult;
  }
}

/** Whether `handler` runs chunks (it has a handleChunk method). */
export function isChunkHandler(handler: unknown): handler is ChunkHandlerHost {
  return typeof (handler as { handleChunk?: unknown } | null)?.handleChunk === 'function';
}
