import { Client } from 'pg';
import { TEST_SERVER_URL } from './test-database';

/** Sleeps `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A connected client on `url`; call `end()` when done. */
export async function connect(url: string): Promise<Client> {
  const c = new Client({ connectionString: url });
  await c.connect();
  return c;
}

/**
 * Ends every connection to database `dbName` except the caller's own (an
 * outage as the service sees it). Connects to the server's maintenance
 * database, so it never touches another test file's database.
 * @returns how many backends were terminated.
 */
export async function terminateBackends(dbName: string, filter = `true`): Promise<number> {
  const c = await connect(TEST_SERVER_URL);
  try {
    const { rows } = await c.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND (${filter})`,
      [dbName],
    );
    return rows.filter((r) => r.ok).length;
  } finally {
    await c.end();
  }
}

/** One execution attempt as recorded in `action_attempts`. */
export interface TraceRow {
  action_id: string;
  lock_id: string | null;
  attempt: number;
  worker_id: string;
  started_at: Date;
  finished_at: Date;
  outcome: string;
}

/** What {@link checkQueueTrace} found. */
export interface TraceReport {
  actions: number;
  done: number;
  notDone: { id: string; status: string }[];
  /** Actions with a number of `done` trace rows other than one. */
  doneRowsNotOne: string[];
  /** Two attempts of one group whose lease intervals overlap. */
  overlaps: string[];
  /** An action of a group started before a smaller id of the group was done. */
  orderViolations: string[];
  attemptsByOutcome: Record<string, number>;
}

/**
 * Checks the trace of a finished run (a local check, independent of the
 * service code): every action `done` with exactly one `done` attempt row; in
 * each group no two recorded attempts overlap (every row is the interval a
 * lease was held: claim to recorded end); and in each group attempts run in id
 * order, an action starting only after every smaller id of the group ended
 * `done`.
 */
export async function checkQueueTrace(c: Client): Promise<TraceReport> {
  const actions = await c.query<{ id: string; lock_id: string | null; status: string }>(
    `SELECT id::text, lock_id::text, status FROM actions ORDER BY actions.id`,
  );
  const trace = await c.query<TraceRow>(
    `SELECT action_id::text, lock_id::text, attempt, worker_id, started_at, finished_at, outcome FROM action_attempts ORDER BY started_at, id`,
  );
  const report: TraceReport = {
    actions: actions.rowCount ?? 0,
    done: 0,
    notDone: [],
    doneRowsNotOne: [],
    overlaps: [],
    orderViolations: [],
    attemptsByOutcome: {},
  };
  const doneRows = new Map<string, number>();
  for (const t of trace.rows) {
    report.attemptsByOutcome[t.outcome] = (report.attemptsByOutcome[t.outcome] ?? 0) + 1;
    if (t.outcome === 'done') doneRows.set(t.action_id, (doneRows.get(t.action_id) ?? 0) + 1);
  }
  for (const a of actions.rows) {
    if (a.status === 'done') report.done++;
    else report.notDone.push({ id: a.id, status: a.status });
    if ((doneRows.get(a.id) ?? 0) !== 1 && a.status === 'done') report.doneRowsNotOne.push(a.id);
  }
  // Per group, in start order.
  const groups = new Map<string, TraceRow[]>();
  for (const t of trace.rows) {
    if (t.lock_id === null) continue;
    const list = groups.get(t.lock_id) ?? [];
    list.push(t);
    groups.set(t.lock_id, list);
  }
  const groupIds = new Map<string, string[]>();
  for (const a of actions.rows) {
    if (a.lock_id === null) continue;
    const list = groupIds.get(a.lock_id) ?? [];
    list.push(a.id);
    groupIds.set(a.lock_id, list);
  }
  for (const [lockId, rows] of groups) {
    const doneAt = new Map<string, number>();
    for (const r of rows) if (r.outcome === 'done') doneAt.set(r.action_id, r.finished_at.getTime());
    const ids = (groupIds.get(lockId) ?? []).map((x) => BigInt(x)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (i > 0) {
        const p = rows[i - 1];
        if (r.started_at.getTime() < p.finished_at.getTime()) {
          report.overlaps.push(
            `lock ${lockId}: action ${r.action_id}#${r.attempt} started ${r.started_at.toISOString()} before action ${p.action_id}#${p.attempt} ended ${p.finished_at.toISOString()}`,
          );
        }
      }
      // Every smaller id of the group must have been done before this start.
      const me = BigInt(r.action_id);
      for (const other of ids) {
        if (other >= me) break;
        const d = doneAt.get(other.toString());
        if (d === undefined || d > r.started_at.getTime()) {
          report.orderViolations.push(`lock ${lockId}: action ${r.action_id}#${r.attempt} started before smaller action ${other} was done`);
          break;
        }
      }
    }
  }
  return report;
}
