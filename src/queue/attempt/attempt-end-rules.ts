import { QueueSettings } from '../../config/settings';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { HandlerTimeoutError } from '../../handlers/handler-timeout.error';
import { BackOffRequest, backOffRequested } from '../../handlers/retry-after.error';
import { CancelRequestedError, LeaseExpiringError, LeaseLostError, NotAloneError, ShutdownError, StrayHandlerError } from '../instance/abort-reasons';
import { ThreadRetiredError, ThreadTaskError } from '../isolation/handler-threads.service';
import { toResultJson } from '../outcome/handler-result';
import { describeThrown, isPermanentFailure } from '../outcome/thrown-value';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { AttemptEnd } from './attempt-end';
import { fullJitterBackoffMs } from './backoff';

/** Delay before an action released with its handler still running may run again (ms): time for this process to exit. */
const STUCK_RELEASE_DELAY_MS = 2_000;

/**
 * What an attempt's end records, from how its handler ended: the rules the
 * AttemptRunner applies (its docstring lists them by cause). A charged
 * failure is retried with full-jitter backoff (the handler's
 * backoffBaseMs/backoffCapMs, else RETRY_BACKOFF_BASE_MS/CAP_MS) while the
 * attempt budget lasts, else it fails; a permanent failure fails at once.
 */
export class AttemptEndRules {
  constructor(
    private readonly settings: QueueSettings,
    private readonly registry: ActionHandlersRegistry,
  ) {}

  /** How one action ended from the outcome its handler gave (returned, or reported by a chunk handler for one row). */
  readonly endOf = (row: LeasedActionRow, outcome: { ok: true; result?: unknown } | { ok: false; error: unknown }): AttemptEnd => {
    if (!outcome.ok) return this.thrown(row, outcome.error);
    try {
      return { kind: 'done', outcome: 'done', resultJson: toResultJson(outcome.result) };
    } catch (error) {
      return this.failure(row, error, 'error');
    }
  };

  /** How an attempt whose handler threw (or reported) `error` ends: released for a retired thread, backed off when asked, else a charged failure. */
  thrown(row: LeasedActionRow, error: unknown): AttemptEnd {
    if (isThreadRetired(error)) return { kind: 'released', outcome: 'released', error: (error as ThreadRetiredError).message, delayMs: 0 };
    const backOff = backOffRequested(error) ?? threadBackOff(error);
    if (backOff) {
      const { message } = describeThrown(error);
      const end: AttemptEnd = { kind: 'released', outcome: 'backed_off', error: message, delayMs: backOff.ms };
      if (backOff.wholeType) end.pauseTypeMs = backOff.ms;
      return end;
    }
    return this.failure(row, error, 'error');
  }

  /**
   * What to record for an attempt its signal stopped, or null to record
   * nothing (the lease is gone, or is left to expire).
   * @param reason the signal's reason (abort-reasons.ts, or a HandlerTimeoutError).
   * @param settled the handler had settled when the attempt ended.
   * @param stray the stray error that stopped it, if one did.
   * @param quarantined the attempt is a suspect's (docs/guarantees.md, poison detection).
   * @param started its handler was started (false: a suspect's attempt stopped while it waited to start).
   */
  aborted(row: LeasedActionRow, reason: unknown, settled: boolean, stray: unknown, quarantined = false, started = true): AttemptEnd | null {
    if (reason instanceof LeaseLostError) return null;
    // A suspect whose instance could not keep it leased, or any attempt whose
    // renewals failed while its instance's event loop stalled: a loss with
    // its instance, not a release. Left to expire, the reaper counts it as one
    // (poison detection, 047-singled-losses.up.sql; a suspect's is charged);
    // found in an out-of-memory spiral, whose stalls beat the watchdog to it.
    if (reason instanceof LeaseExpiringError && started && (quarantined || reason.loopStalledMs !== null)) return null;
    if (reason instanceof HandlerTimeoutError) return this.failure(row, reason, 'timeout');
    if (reason instanceof StrayHandlerError) return this.failure(row, stray ?? reason, 'error');
    const { message } = describeThrown(reason);
    if (reason instanceof CancelRequestedError) return settled ? { kind: 'cancelled', outcome: 'cancelled', error: message } : null;
    if (reason instanceof ShutdownError || reason instanceof LeaseExpiringError || reason instanceof NotAloneError) {
      return { kind: 'released', outcome: 'released', error: message, delayMs: settled ? 0 : STUCK_RELEASE_DELAY_MS };
    }
    return this.failure(row, reason, 'error');
  }

  /** A charged failure: retried with backoff while the budget lasts, else failed. */
  failure(row: LeasedActionRow, error: unknown, outcome: 'error' | 'timeout'): AttemptEnd {
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
