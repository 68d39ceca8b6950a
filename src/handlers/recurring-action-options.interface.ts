/**
 * A recurring action: a cron schedule that enqueues one action per tick,
 * exactly once however many instances run (docs/operator-controls.md).
 * Given in code as the handler option `recurring` (the action's type is the
 * handler's), or at runtime with `POST /schedules`.
 * @publicApi
 */
export interface RecurringActionOptions {
  /** Unique name of the schedule (1..200 characters), e.g. `nightly-report`. */
  name: string;
  /** Cron expression: 5 fields, or 6 with seconds first (`*\/10 * * * * *`). */
  cron: string;
  /** IANA time zone the expression is read in, e.g. `Europe/Paris` or `UTC`. Required: no implicit server zone. */
  timeZone: string;
  /** Payload of each enqueued action. Default `{}`. */
  payload?: Record<string, unknown>;
  /** Enqueue into this integer group (decimal string). At most one of lockId and groupKey. */
  lockId?: string;
  /** Enqueue into this string group. */
  groupKey?: string;
  /** maxAttempts of each action. Default DEFAULT_MAX_ATTEMPTS. */
  maxAttempts?: number;
  /**
   * After downtime: `skip` (default) drops the ticks older than
   * `misfireGraceMs`; `fill` enqueues the newest `catchUpLimit` of them too.
   */
  catchUp?: 'skip' | 'fill';
  /** With `fill`: at most this many late ticks, 0..100. Default 1. */
  catchUpLimit?: number;
  /** A tick at most this late (ms) is still enqueued under either policy. Default 10 000. */
  misfireGraceMs?: number;
}
