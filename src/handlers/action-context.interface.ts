import type { FailurePolicy } from '../vocabulary';
import { LoggerService } from '@nestjs/common';

/**
 * A claimed action as a handler sees it. 64-bit ids are strings.
 * @publicApi
 */
export interface QueuedAction {
  id: string;
  lockId: string | null;
  type: string;
  payload: Record<string, unknown>;
  /** This attempt's number, 1-based; also the fencing token. */
  attempt: number;
  maxAttempts: number;
  onFailure: FailurePolicy;
  idempotencyKey: string | null;
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
}
