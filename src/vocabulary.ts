/**
 * The queue's shared words, one definition each, used by every layer: the
 * statuses of an action, the failure policies, the outcomes of an attempt and
 * the pattern of an action type. The database checks the same values
 * (src/database/sql/001-tables.up.sql).
 */

/**
 * Lifecycle of an action. `done`, `cancelled` and `failed` are final states.
 * @publicApi
 */
export type ActionStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
/** Every {@link ActionStatus}, in lifecycle order. */
export const ACTION_STATUSES = ['pending', 'running', 'done', 'failed', 'cancelled'] as const satisfies readonly ActionStatus[];

/**
 * What a final failure does to the group: `block` keeps later actions waiting
 * until an operator retries or cancels; `skip` lets the group move on.
 * @publicApi
 */
export type FailurePolicy = 'block' | 'skip';
/** Every {@link FailurePolicy}. */
export const FAILURE_POLICIES = ['block', 'skip'] as const satisfies readonly FailurePolicy[];

/**
 * Outcome of one execution attempt, as recorded in the trace: `done`;
 * `error` (the handler threw, or its result could not be stored); `timeout`
 * (its `timeoutMs` passed); `cancelled` (cancellation requested while it ran);
 * `lease_expired` (its instance was lost: the reaper ended it); `released`
 * (handed back uncharged: shutdown, or its instance had to stop); `backed_off`
 * (the handler asked to wait: ctx.backOff or RetryAfterError; uncharged).
 * @publicApi
 */
export type AttemptOutcome = 'done' | 'error' | 'timeout' | 'cancelled' | 'lease_expired' | 'released' | 'backed_off';
/** Every {@link AttemptOutcome}. */
export const ATTEMPT_OUTCOMES = [
  'done',
  'error',
  'timeout',
  'cancelled',
  'lease_expired',
  'released',
  'backed_off',
] as const satisfies readonly AttemptOutcome[];

/** An action type: letters, digits, `.`, `_`, `-`, `:`; 1..200 characters, starting with a letter or digit. */
export const ACTION_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
