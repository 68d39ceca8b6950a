import { Client } from 'pg';
import { checkTrace } from '../src/testing';

/** One execution attempt of an action, as recorded in `action_attempts`; times in ms since the epoch (database clock). */
export interface TracedAttempt {
  attempt: number;
  workerId: string;
  startMs: number;
  finishMs: number;
  outcome: string;
}

/** An action of the run with its attempts, in attempt order. */
export interface TracedAction {
  id: bigint;
  lockId: string | null;
  type: string;
  status: string;
  createdMs: number;
  attempts: TracedAttempt[];
}

/** What the trace says about the run; the run is clean when every count is 0. */
export interface TraceVerdict {
  actions: number;
  groups: number;
  /** From the first enqueue to the last finish (ms, database clock). */
  wallMs: number;
  /** Most attempts running at one instant. */
  maxParallelism: number;
  /** An action started before an earlier-id action of its group had finished. */
  orderViolations: number;
  /** Two attempts of one group overlapped in time. */
  overlaps: number;
  /** Enqueued actions that are not `done` (or have no trace). */
  lost: number;
  /** Actions executed more than once. */
  repeated: number;
  clean: boolean;
}

/**
 * Reads the actions with the given ids and their attempts (action_attempts
 * joined to actions).
 *
 * @param client a connected client on the service's database.
 * @param ids the ids the run enqueued (as returned by the API).
 * @returns the actions in id order; ids not found are missing from the result.
 */
export async function readTrace(client: Client, ids: string[]): Promise<TracedAction[]> {
  const { rows } = await client.query<{
    id: string;
    lock_id: string | null;
    type: string;
    status: string;
    created_ms: number;
    attempt: number | null;
    worker_id: string | null;
    start_ms: number | null;
    finish_ms: number | null;
    outcome: string | null;
  }>(
    `SELECT a.id, a.lock_id, a.type, a.status,
            extract(epoch FROM a.created_at)::float8 * 1000 AS created_ms,
            t.attempt, t.worker_id,
            extract(epoch FROM t.started_at)::float8 * 1000 AS start_ms,
            extract(epoch FROM t.finished_at)::float8 * 1000 AS finish_ms,
            t.outcome
       FROM actions a
       LEFT JOIN action_attempts t ON t.action_id = a.id
      WHERE a.id = ANY($1::bigint[])
      ORDER BY a.id, t.attempt, t.id`,
    [ids],
  );
  const byId = new Map<string, TracedAction>();
  for (const r of rows) {
    let action = byId.get(r.id);
    if (!action) {
      action = { id: BigInt(r.id), lockId: r.lock_id, type: r.type, status: r.status, createdMs: Number(r.created_ms), attempts: [] };
      byId.set(r.id, action);
    }
    if (r.attempt !== null) {
      action.attempts.push({ attempt: r.attempt, workerId: r.worker_id!, startMs: Number(r.start_ms), finishMs: Number(r.finish_ms), outcome: r.outcome! });
    }
  }
  return [...byId.values()];
}

/**
 * The run's figures and verdict: order violations, overlaps and lost actions
 * come from the shared checker (`checkTrace`, src/testing/trace-checker.ts,
 * the one the tests and the benchmark use), restricted to the run's groups;
 * wall time, parallelism and repeated executions from the run's trace.
 *
 * @param client a connected client on the service's database.
 * @param actions the run's actions from {@link readTrace}.
 * @param ids every id the run enqueued (missing ones count as lost).
 */
export async function verifyTrace(client: Client, actions: TracedAction[], ids: string[]): Promise<TraceVerdict> {
  const groups = groupByLockId(actions);
  const report = await checkTrace(client, { expectDone: ids, lockIds: [...groups.keys()] });
  const runIds = new Set(ids);
  const repeated = actions.filter((a) => a.attempts.length > 1).length;
  const all = actions.flatMap((a) => a.attempts);
  const firstCreated = Math.min(...actions.map((a) => a.createdMs));
  const lastFinish = Math.max(...all.map((t) => t.finishMs));
  const verdict: TraceVerdict = {
    actions: actions.length,
    groups: groups.size + actions.filter((a) => a.lockId === null).length,
    wallMs: all.length ? lastFinish - firstCreated : 0,
    maxParallelism: maxConcurrent(all),
    orderViolations: report.orderViolations.length,
    overlaps: report.overlaps.length,
    lost: report.lost.filter((l) => runIds.has(l.actionId)).length, // missing ids included
    repeated,
    clean: false,
  };
  verdict.clean = verdict.orderViolations === 0 && verdict.overlaps === 0 && verdict.lost === 0 && repeated === 0;
  return verdict;
}

/** Actions with a lock id, per lock id, in id order. */
export function groupByLockId(actions: TracedAction[]): Map<string, TracedAction[]> {
  const groups = new Map<string, TracedAction[]>();
  for (const a of [...actions].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) {
    if (a.lockId === null) continue;
    const list = groups.get(a.lockId) ?? [];
    list.push(a);
    groups.set(a.lockId, list);
  }
  return groups;
}

/** Most intervals open at one instant (an end at the same instant as a start does not overlap it). */
function maxConcurrent(attempts: TracedAttempt[]): number {
  const events: Array<[number, number]> = [];
  for (const t of attempts) events.push([t.startMs, 1], [t.finishMs, -1]);
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let max = 0;
  for (const [, delta] of events) {
    now += delta;
    max = Math.max(max, now);
  }
  return max;
}

/**
 * Renders the groups as ASCII timelines on one shared time axis: one line per
 * action, `#` while an attempt ran, so order within a group and parallelism
 * across groups can be seen.
 *
 * @param groups lock id → actions in id order.
 * @param width characters of the time bar.
 * @returns the lines to print.
 */
export function renderTimeline(groups: Array<[string, TracedAction[]]>, width = 60): string[] {
  const attempts = groups.flatMap(([, list]) => list.flatMap((a) => a.attempts));
  if (attempts.length === 0) return ['  (no attempts recorded)'];
  const t0 = Math.min(...attempts.map((t) => t.startMs));
  const t1 = Math.max(...attempts.map((t) => t.finishMs));
  const span = Math.max(t1 - t0, 1);
  const col = (ms: number) => Math.min(width - 1, Math.floor(((ms - t0) / span) * width));
  const lines = [`  time axis: ${span.toFixed(0)} ms from the first start shown; '#' = running`];
  for (const [lockId, list] of groups) {
    lines.push(`  group ${lockId}`);
    for (const a of list) {
      const bar = Array<string>(width).fill('.');
      for (const t of a.attempts) {
        for (let c = col(t.startMs); c <= col(t.finishMs); c++) bar[c] = '#';
      }
      const times = a.attempts.map((t) => `${(t.startMs - t0).toFixed(1)}-${(t.finishMs - t0).toFixed(1)} ms`).join(', ') || 'never ran';
      lines.push(`    #${String(a.id).padEnd(6)} ${a.type.padEnd(16)} |${bar.join('')}| ${times} ${a.status === 'done' ? '' : `[${a.status}]`}`.trimEnd());
    }
  }
  return lines;
}
