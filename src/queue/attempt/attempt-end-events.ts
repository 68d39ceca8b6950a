import type { QueueEventName } from '../../events/queue-event-names';
import type { QueueEventSink } from '../../events/queue-event-sink';
import type { LeasedActionRow } from '../sql/leased-action.sql';
import type { AttemptEnd, AttemptEndKind } from './attempt-end';

/** The events each kind of end may report (see publishAttemptEnd). */
const ATTEMPT_END_EVENTS: Record<AttemptEndKind, readonly QueueEventName[]> = {
  done: ['completed'],
  retry: ['failed'],
  failed: ['failed', 'blocked'],
  cancelled: ['cancelled'],
  released: [],
};

/**
 * Reports a recorded attempt's end as lifecycle events (src/events/): `done`
 * → `completed`; `retry` → `failed` with `willRetry`; `failed` → `failed`
 * without, and `blocked` when the action holds a group under the `block`
 * policy; `cancelled` → `cancelled` (by the worker). A release (shutdown,
 * self-fencing, back-off) changes nothing a listener waits for: no event.
 * Call it only once the finishing statement committed; it only posts the
 * events (delivery is asynchronous), so the worker never waits on a listener.
 *
 * @param sink where events go.
 * @param row the action as it was leased.
 * @param end how its attempt ended, as recorded.
 */
export function publishAttemptEnd(sink: QueueEventSink, row: LeasedActionRow, end: AttemptEnd): void {
  // With no listener of what this end would report, nothing is built (the common case: no cost per attempt).
  const names = ATTEMPT_END_EVENTS[end.kind];
  if (!names.some((name) => sink.wanted(name))) return;
  const base = { actionId: row.id, lockId: row.lock_id, type: row.type, at: new Date() };
  switch (end.kind) {
    case 'done':
      if (sink.wanted('completed')) sink.publish('completed', { ...base, attempt: row.attempts });
      return;
    case 'retry':
    case 'failed': {
      const willRetry = end.kind === 'retry';
      const error = end.error ?? 'no message';
      if (sink.wanted('failed')) {
        sink.publish('failed', {
          ...base,
          attempt: row.attempts,
          outcome: end.outcome,
          error,
          willRetry,
          ...(willRetry ? { retryInMs: end.delayMs ?? 0 } : {}),
        });
      }
      if (!willRetry && row.lock_id !== null && row.on_failure === 'block' && sink.wanted('blocked')) {
        sink.publish('blocked', { ...base, lockId: row.lock_id, error });
      }
      return;
    }
    case 'cancelled':
      if (sink.wanted('cancelled')) sink.publish('cancelled', { ...base, by: 'worker', attempt: row.attempts });
      return;
    case 'released':
      return;
  }
}
