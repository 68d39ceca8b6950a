import type { ResourceLimits } from 'node:worker_threads';
import type { RecurringActionOptions } from './recurring-action-options.interface';
import type { RateLimit } from './rate-limit';

/**
 * Options of a handler, given to {@link ActionHandler}.
 *
 * Backoff after a failed attempt n (1-based, counting charged attempts) is
 * "full jitter" exponential: a uniform random delay in
 * [0, min(backoffCapMs, backoffBaseMs * 2^(n-1))] ms
 * (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
 * @publicApi
 */
export interface ActionHandlerOptions {
  /** The action type this handler runs, e.g. `instance.create`. Stored in the database as is. */
  type: string;
  /**
   * End the attempt after this many ms: the signal aborts with a
   * HandlerTimeoutError and the attempt ends at once as a `timeout` (retried
   * while the budget lasts). A handler that ignores its signal keeps its slot
   * until it returns; with `isolation: 'thread'` its thread is terminated
   * (the attempt ends once the thread has exited), and the time counts from when the handler starts in its thread (a new
   * thread first loads the handler's file, allowed up to 30 s more).
   * Default: none.
   */
  timeoutMs?: number;
  /** Backoff base (ms). Default: the RETRY_BACKOFF_BASE_MS setting (1 000). */
  backoffBaseMs?: number;
  /** Backoff cap (ms). Default: the RETRY_BACKOFF_CAP_MS setting (60 000). */
  backoffCapMs?: number;
  /**
   * Caps the attempts of every action of this type: written into the action's
   * `maxAttempts` when it is enqueued through the API and at its first claim,
   * so the number shown is the number enforced. Default: no cap.
   */
  maxAttempts?: number;
  /**
   * `'process'` (default): the handler runs in the service's event loop.
   * `'thread'`: each attempt runs in a worker thread of a pool kept for this
   * type. A timeout terminates the thread, an out-of-memory or crash ends only
   * that attempt, and a busy loop never stalls heartbeats. An attempt ended
   * before its handler settled (timeout, stray error, cancel, shutdown)
   * ends, and releases its group, only once its thread has exited. The handler's file
   * is loaded in the thread: the class is built with no arguments, or, when the
   * file also exports a Nest module that provides it, through that module
   * (bootstrapped once per thread). It has no access to the service's DI
   * container, and its result and errors cross the thread as JSON.
   */
  isolation?: 'process' | 'thread';
  /** With `isolation: 'thread'`: limits of each thread (e.g. `{ maxOldGenerationSizeMb: 256 }`). */
  resourceLimits?: ResourceLimits;
  /**
   * Recurring actions of this type: each schedule enqueues one action per
   * cron tick, exactly once across every instance. Written to the database at
   * start-up (docs/operator-controls.md). Default: none.
   */
  recurring?: RecurringActionOptions[];
  /**
   * Default rate limit of this type, shared by every instance (a token bucket
   * in the claim; docs/flow-control.md), e.g. `{ perSecond: 20, burst: 5 }`.
   * `PUT /rate-limits/:type` overrides it at runtime. Written to the database
   * by each instance at start-up. Default: none.
   */
  rateLimit?: RateLimit;
  /**
   * Ordered chunks: the handler (a {@link ChunkHandlerHost}) gets up to `max`
   * consecutive actions of one group per call, in id order, under one lease
   * (docs/ordered-chunks.md). Only the group's next actions of this type that
   * are due join a chunk; an action of another type, a scheduled one or a
   * suspect ends it there. Actions without a group, suspects, and types or
   * groups under a rate limit run one per call. Default: none (one action per call).
   */
  chunk?: ChunkOptions;
}

/**
 * Options of an ordered chunk handler.
 * @publicApi
 */
export interface ChunkOptions {
  /** Most actions per chunk, the first included: an integer from 1 to MAX_CHUNK_SIZE (1 000). */
  max: number;
}

/** The largest `chunk.max`: a chunk is written by one statement, and its rows are held by one lease. */
export const MAX_CHUNK_SIZE = 1_000;
