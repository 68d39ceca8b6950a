import type { FailurePolicy } from '../vocabulary';
import { LoggerService } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { BackOffOptions } from './retry-after.error';

/**
 * A claimed action as a handler sees it. 64-bit ids are strings.
 * @publicApi
 */
export interface QueuedAction {
  /** The action id (a 64-bit integer as a decimal string). */
  id: string;
  /** Its group (decimal string), or null: it belongs to no group. */
  lockId: string | null;
  /** The action type this handler was registered for. */
  type: string;
  /** The JSON object given at enqueue. */
  payload: Record<string, unknown>;
  /** This attempt's number, 1-based; also the fencing token. */
  attempt: number;
  /** Attempts allowed in all; after the last one fails, the action is `failed`. */
  maxAttempts: number;
  /** What a final failure does to the group: `block` holds it, `skip` lets it move on. */
  onFailure: FailurePolicy;
  /** The key given at enqueue, or null. */
  idempotencyKey: string | null;
  /** When the action was enqueued. */
  createdAt: Date;
}

/**
 * The state of the action's group (`ctx.groupState`), read and written inside
 * `ctx.transaction`, in its transaction: a state set there commits with the
 * action's completion, or not at all. Its version grows by one with each
 * completed action that changed it (`GET /groups/:lockId/state`).
 * @publicApi
 */
export interface GroupState {
  /**
   * The group's state as this transaction sees it (a value set earlier in it, else the stored one).
   * @returns the JSON value, or undefined when the group has none.
   * @throws ActionTransactionMisuseError outside an open `ctx.transaction`, or for an action without a group.
   */
  get<T = unknown>(): Promise<T | undefined>;
  /**
   * Sets the group's state, written when the transaction completes the action.
   * @param value any JSON value (objects, arrays, strings, numbers, booleans, null).
   * @throws TypeError when JSON cannot represent it (undefined, a function, a BigInt, a cycle) or jsonb cannot store it (NUL, an unpaired surrogate).
   * @throws RangeError when its JSON is over GROUP_STATE_MAX_BYTES (default 64 KiB).
   * @throws ActionTransactionMisuseError outside an open `ctx.transaction`, or for an action without a group.
   */
  set(value: unknown): void;
}

/**
 * What a handler gets besides the action.
 * @publicApi
 */
export interface ActionContext {
  /**
   * Aborted when the lease is lost (heartbeat found another holder), when the
   * handler's timeout passes, or when the service shuts down. Pass it to
   * fetch/HTTP clients and stop work when it fires.
   */
  signal: AbortSignal;
  /**
   * The fencing token: strictly increasing per action. Send it with side
   * effects so a stale holder's late writes can be rejected downstream.
   */
  attempt: number;
  /** Id of the worker instance running the attempt. */
  workerId: string;
  /** A logger that tags lines with the action. */
  logger: LoggerService;
  /**
   * Ends this attempt now, uncharged, and runs the action again after `ms`
   * (its group waits behind it; with `wholeType`, every action of this type
   * waits too). It throws a RetryAfterError: write `return ctx.backOff(ms)`
   * or `throw ...`, and do not catch it. Trace outcome `backed_off`.
   * @param ms 0..MAX_BACK_OFF_MS (one day) milliseconds.
   * @throws RetryAfterError always; TypeError for an invalid `ms` (then a charged failure).
   */
  backOff(ms: number, options?: BackOffOptions): never;
  /**
   * Runs `work` in one database transaction that also completes the action:
   * the callback's writes (through `manager`) and the action's `done` commit
   * together, or not at all. It opens a READ COMMITTED transaction on the
   * queue's DataSource (the host app's, when the queue is embedded on it),
   * checks that this attempt still owns the action, runs `work`, then records
   * the completion with the worker's own fenced finishing statement (trace
   * row, release of the group) and commits. What `work` returns is stored as
   * the action's `result`; what the handler returns afterwards is ignored.
   * Call it once per attempt, as the handler's last step.
   *
   * @param work the handler's writes; runs once; its rejection rolls back.
   * @returns what `work` returned, once committed.
   * @throws ActionFencedError when this attempt no longer owns the action (lease
   *   lost, cancel requested): rolled back, nothing visible.
   * @throws ActionTransactionMisuseError when nested, called again after it
   *   committed, called after the handler returned, in a handler thread or a chunk handler.
   * @throws PermanentFailureError when what `work` returned cannot be stored as JSON (rolled back).
   * Any error of `work` or of the database: rolled back; thrown on to the handler.
   */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** The state of the action's group, for use inside `ctx.transaction` (see GroupState). */
  groupState: GroupState;
}
