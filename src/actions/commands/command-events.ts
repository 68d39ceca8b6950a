import type { QueueEventSink } from '../../events/queue-event-sink';
import type { FailurePolicy } from '../../vocabulary';

/** What the command events read of an action: its columns as the command statements return them. */
export interface CommandedAction {
  id: string;
  lock_id: string | null;
  type: string;
  group_key: string | null;
  on_failure: FailurePolicy;
}

/** The fields every event of a commanded action carries. */
function baseOf(row: CommandedAction): { actionId: string; lockId: string | null; groupKey: string | null; type: string; at: Date } {
  return { actionId: row.id, lockId: row.lock_id, groupKey: row.group_key, type: row.type, at: new Date() };
}

/**
 * Reports a committed cancel: `cancelled` when the action is cancelled now
 * (a running one's request is no event: the worker reports its end), and
 * `unblocked` when it was a failed action holding its group under `block`.
 *
 * @param sink where events go.
 * @param row the action after the cancel.
 * @param cancelledNow whether it is `cancelled` now (false: a running action's cancellation was requested).
 * @param previousStatus its status before the cancel.
 */
export function publishCancel(sink: QueueEventSink, row: CommandedAction, cancelledNow: boolean, previousStatus: string): void {
  if (!cancelledNow) return;
  if (sink.wanted('cancelled')) sink.publish('cancelled', { ...baseOf(row), by: 'command' });
  if (previousStatus === 'failed' && row.on_failure === 'block' && row.lock_id !== null && sink.wanted('unblocked')) {
    sink.publish('unblocked', { ...baseOf(row), lockId: row.lock_id, by: 'cancel' });
  }
}

/**
 * Reports a committed retry: `retried`, and under `block` (in place) in a
 * group, `unblocked`: the failed head is pending again, so the group moves.
 *
 * @param sink where events go.
 * @param row the failed action that was retried (for a copy: the original).
 * @param retriedAs the action that runs now: `row.id` in place, else the copy's id.
 */
export function publishRetry(sink: QueueEventSink, row: CommandedAction, retriedAs: string): void {
  const inPlace = retriedAs === row.id;
  if (sink.wanted('retried')) sink.publish('retried', { ...baseOf(row), inPlace, retriedAs });
  if (inPlace && row.lock_id !== null && sink.wanted('unblocked')) sink.publish('unblocked', { ...baseOf(row), lockId: row.lock_id, by: 'retry' });
}
