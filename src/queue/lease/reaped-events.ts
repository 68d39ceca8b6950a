import type { QueueEventSink } from '../../events/queue-event-sink';
import type { FailurePolicy } from '../../vocabulary';

/** A lost attempt the reaper ended, as its statement returns it. */
export interface ReapedAttempt {
  action_id: string;
  attempt: number;
  /** The action's status after the reaping: `pending` (runs again), `failed` or `cancelled`. */
  status: string;
}

/** The columns of a reaped action the events need (REAPED_ACTIONS_SQL). */
export interface ReapedAction {
  id: string;
  lock_id: string | null;
  type: string;
  on_failure: FailurePolicy;
  last_error: string | null;
}

/**
 * The reaped attempts that ended their action for good, when a listener waits
 * for what they would report: a lost attempt that ran alone in quarantine
 * and spent the budget (`failed`, and `blocked` in a group under `block`), or
 * a running action whose cancellation was requested (`cancelled`). A lost
 * attempt that runs again (`pending`) is no event: nothing failed.
 * @returns the attempts to report, or none.
 */
export function reapedToReport(sink: QueueEventSink, rows: ReapedAttempt[]): ReapedAttempt[] {
  const failed = sink.wanted('failed') || sink.wanted('blocked');
  const cancelled = sink.wanted('cancelled');
  return rows.filter((r) => (r.status === 'failed' && failed) || (r.status === 'cancelled' && cancelled));
}

/**
 * Reports the reaper's terminal ends (see reapedToReport) after its statement committed.
 * @param sink where events go.
 * @param rows the attempts to report.
 * @param actions their actions, read after the commit (an action gone meanwhile is skipped).
 */
export function publishReapedEnds(sink: QueueEventSink, rows: ReapedAttempt[], actions: ReapedAction[]): void {
  const byId = new Map(actions.map((a) => [a.id, a]));
  for (const r of rows) {
    const a = byId.get(r.action_id);
    if (!a) continue;
    const base = { actionId: a.id, lockId: a.lock_id, type: a.type, at: new Date() };
    if (r.status === 'cancelled') {
      if (sink.wanted('cancelled')) sink.publish('cancelled', { ...base, by: 'worker', attempt: r.attempt });
      continue;
    }
    const error = a.last_error ?? 'lease expired';
    if (sink.wanted('failed')) sink.publish('failed', { ...base, attempt: r.attempt, outcome: 'lease_expired', error, willRetry: false });
    if (a.lock_id !== null && a.on_failure === 'block' && sink.wanted('blocked')) sink.publish('blocked', { ...base, lockId: a.lock_id, error });
  }
}
