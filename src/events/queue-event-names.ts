/**
 * The lifecycle events the queue reports to the host app, in-process
 * (docs/using-the-package.md, "Lifecycle events"):
 * - `completed`: an attempt's handler returned and the action is `done`.
 * - `failed`: an attempt ended in error (thrown, timed out, or refused by the
 *   handler's permanent-failure error); `willRetry` says whether the action is
 *   `pending` again for a later attempt or `failed` for good. Also when this
 *   instance's reaper charged a suspect's lost attempt that spent the budget
 *   (outcome `lease_expired`, never `willRetry`).
 * - `retried`: an operator retried a failed action (POST /actions/:id/retry,
 *   `ActionQueue.retry`, or a bulk retry): pending again in place under `block`,
 *   or copied to its group's tail under `skip`.
 * - `cancelled`: an action became `cancelled`: at once by an operator's cancel
 *   (pending or failed), or when the handler of a running one stopped after its
 *   cancellation was requested (or its lease expired, reaped by this instance).
 * - `blocked`: an action of a group failed for good under the `block` policy,
 *   so its group waits for an operator.
 * - `unblocked`: an operator's retry or cancel of such a failed action released
 *   its group.
 * @publicApi
 */
export const QUEUE_EVENT_NAMES = ['completed', 'failed', 'retried', 'cancelled', 'blocked', 'unblocked'] as const;

/** One of {@link QUEUE_EVENT_NAMES}. @publicApi */
export type QueueEventName = (typeof QUEUE_EVENT_NAMES)[number];
