import type { FailurePolicy } from '../vocabulary';
import { LoggerService } from '@nestjs/common';
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
}
