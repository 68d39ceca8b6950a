import { Client } from 'pg';

/** What the trace says about a finished run. All counts must be 0 for a valid run. */
export interface TraceVerdict {
  actions: number;
  notDone: number;
  orderViolations: number;
  overlaps: number;
  doneMoreThanOnce: number;
  ok: boolean;
}

/**
 * Checks guarantees G1-G3 from the recorded trace (`action_attempts`):
 * - order: in each group, an action's first attempt starts no earlier than the
 *   previous action's last attempt finished;
 * - overlap: no two attempts of one group overlap in time;
 * - every action is `done`, with exactly one `done` attempt.
 * Timestamps are `clock_timestamp()` values taken by the database.
 */
export async function checkTrace(c: Client): Promise<TraceVerdict> {
  const { rows } = await c.query(`
    WITH per_action AS (
      SELECT a.id, a.lock_id, a.status,
             min(t.started_at) AS first_start, max(t.finished_at) AS last_finish,
             count(*) FILTER (WHERE t.outcome = 'done') AS done_count
      FROM actions a LEFT JOIN action_attempts t ON t.action_id = a.id
      GROUP BY a.id
    ),
    ordered AS (
      SELECT *, lag(last_finish) OVER (PARTITION BY lock_id ORDER BY id) AS prev_finish
      FROM per_action WHERE lock_id IS NOT NULL
    ),
    attempts AS (
      SELECT t.lock_id, t.started_at, t.outcome,
             max(t.finished_at) OVER (PARTITION BY t.lock_id ORDER BY t.started_at, t.id
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_finish
      FROM action_attempts t WHERE t.lock_id IS NOT NULL AND t.outcome IN ('done', 'error')
    )
    SELECT
      (SELECT count(*)::int FROM per_action) AS actions,
      (SELECT count(*)::int FROM per_action WHERE status <> 'done') AS not_done,
      (SELECT count(*)::int FROM ordered WHERE first_start < prev_finish) AS order_violations,
      (SELECT count(*)::int FROM attempts WHERE started_at < prev_max_finish) AS overlaps,
      (SELECT count(*)::int FROM per_action WHERE done_count > 1) AS done_more_than_once`);
  const r = rows[0];
  const verdict = {
    actions: r.actions,
    notDone: r.not_done,
    orderViolations: r.order_violations,
    overlaps: r.overlaps,
    doneMoreThanOnce: r.done_more_than_once,
    ok: false,
  };
  verdict.ok = verdict.notDone === 0 && verdict.orderViolations === 0 && verdict.overlaps === 0 && verdict.doneMoreThanOnce === 0;
  return verdict;
}
