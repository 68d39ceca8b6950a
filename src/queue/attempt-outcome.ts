/**
 * How one attempt ended, as handed to the AttemptFinisher.
 * - `done`: the handler returned; `resultJson` (its return value as JSON text) is stored.
 * - `retry`: the handler threw with attempts left; runs again after `delayMs`.
 * - `failed`: permanent failure, or attempts spent.
 * - `released`: aborted by shutdown; back to pending at once, not counted.
 */
export type AttemptEnd =
  | { kind: 'done'; resultJson: string }
  | { kind: 'retry'; error: string; delayMs: number }
  | { kind: 'failed'; error: string }
  | { kind: 'released'; error: string };

/** One attempt to record: which action, which attempt (fencing token), and how it ended. */
export interface AttemptToFinish {
  actionId: string;
  attempt: number;
  end: AttemptEnd;
}
