/**
 * Checks a queue's recorded history against its guarantees. Published in
 * `ordered-action-queue/testing` (not only used by this repository's tests)
 * so that users, the demo and the benchmark can verify a run of their own:
 * `checkTrace(url)` on the queue's database.
 */
import { Client } from 'pg';
import { chooseQueueSchema } from '../database/queue-schema-choice';

/**
 * Anything that runs a query: a pg `Client`, `PoolClient` or `Pool`.
 * @publicApi
 */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * Outcomes of a trace row (`action_attempts.outcome`), plus `running` for an attempt still open in `actions`.
 * @publicApi
 */
export type TraceOutcome = 'done' | 'error' | 'timeout' | 'cancelled' | 'lease_expired' | 'released' | 'backed_off' | 'running';

/**
 * Outcomes whose attempt held a valid lease to its end (the chaos tests' default for overlap checks).
 * @publicApi
 */
export const VALID_LEASE_OUTCOMES: readonly TraceOutcome[] = ['done', 'error', 'timeout', 'cancelled'];

/**
 * Every outcome, including the still-running attempts read from `actions`.
 * @publicApi
 */
export const ALL_OUTCOMES: readonly TraceOutcome[] = ['done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released', 'backed_off', 'running'];

/**
 * One execution attempt as the checker sees it. Times are microseconds since the epoch (exact, unlike `Date`).
 * @publicApi
 */
export interface TracedAttempt {
  actionId: string;
  lockId: string | null;
  attempt: number;
  workerId: string;
  startedUs: number;
  /** `Infinity` for an attempt still running. */
  finishedUs: number;
  outcome: TraceOutcome;
  /** The first action of the ordered chunk it ran in, or null (run alone). */
  chunkOf: string | null;
}

/**
 * An attempt that started while an action with a smaller id of its group had not released the group yet.
 * @publicApi
 */
export interface OrderViolation {
  lockId: string;
  attempt: TracedAttempt;
  /** The smaller-id action that still held the group when `attempt` started. */
  blockingActionId: string;
  blockingStatus: string;
  /** When the blocking action released the group (µs), or null if it never did. */
  blockingReleasedUs: number | null;
}

/**
 * Two attempts of one group whose `[started, finished]` intervals intersect.
 * @publicApi
 */
export interface Overlap {
  lockId: string;
  first: TracedAttempt;
  second: TracedAttempt;
}

/**
 * An action that is not `done` although the check expected it to be (or a expected id with no row at all: status `missing`).
 * @publicApi
 */
export interface LostAction {
  actionId: string;
  lockId: string | null;
  status: string;
}

/**
 * A `done` action whose trace does not hold exactly one `done` row.
 * @publicApi
 */
export interface DoneCountMismatch {
  actionId: string;
  doneRows: number;
}

/**
 * What {@link checkTrace} found. Every list is empty when the run kept G1-G3.
 * @publicApi
 */
export interface TraceReport {
  actionCount: number;
  attemptCount: number;
  orderViolations: OrderViolation[];
  overlaps: Overlap[];
  lost: LostAction[];
  /** Actions with more than one `done` trace row. */
  doneMoreThanOnce: DoneCountMismatch[];
  /** Actions with status `done` but no `done` trace row. */
  doneWithoutTrace: DoneCountMismatch[];
  /** Attempts ending `done` per worker id. */
  doneByWorker: Record<string, number>;
  /** Trace rows per outcome, e.g. how many executions a crash repeated (`lease_expired`). */
  attemptsByOutcome: Record<string, number>;
  /** True when all four problem lists (and doneWithoutTrace) are empty. */
  ok: boolean;
}

/**
 * Options of {@link checkTrace}.
 * @publicApi
 */
export interface TraceCheckOptions {
  /**
   * Which actions must be `done`. `'all'` (default): every action read; `'none'`:
   * skip the lost-action check; a list of ids: those (ids without a row are
   * reported with status `missing`); a predicate over the row.
   */
  expectDone?: 'all' | 'none' | string[] | ((action: { id: string; lockId: string | null; status: string; type: string }) => boolean);
  /**
   * Attempts taking part in the overlap check, by outcome. Default: every
   * outcome ({@link ALL_OUTCOMES}). Chaos tests pass {@link VALID_LEASE_OUTCOMES}:
   * a worker that lost its lease may still be running, but only attempts with
   * a valid lease count. In every case a `lease_expired` attempt may overlap a
   * later attempt of the same action.
   */
  overlapOutcomes?: readonly TraceOutcome[];
  /** Check only these groups (decimal strings). Default: all. Actions without a lock id are only checked for loss and duplicates. */
  lockIds?: string[];
}

interface ActionRecord {
  id: string;
  lockId: string | null;
  type: string;
  status: string;
  onFailure: string;
  /** When the action released its group (µs): the later of finished_at and its last trace row; null if it still holds it. */
  releasedUs: number | null;
}

const US = (column: string) => `floor(extract(epoch FROM ${column}) * 1000000)::int8::text`;
/** The chunk column, read through jsonb so the check also runs on a schema from before migration 042 (null there). */
const CHUNK_OF = (table: string) => `to_jsonb(${table}) ->> 'chunk_of' AS chunk_of`;

/**
 * Which lease of an ordered chunk each attempt ran under: the attempt of the
 * chunk's first action (`chunkOf`) by the same worker that started last at or
 * before it. The first action is leased first and its members by the same
 * statement after it (042-ordered-chunks.up.sql), so two attempts ran in one
 * chunk when they have the same lease; a later chunk the same worker takes
 * from the same first action is another lease. Null for an attempt run alone
 * (or whose first action's attempt is not in the trace).
 */
function chunkLeases(attempts: TracedAttempt[], byAction: Map<string, TracedAttempt[]>): Map<TracedAttempt, TracedAttempt | null> {
  const leases = new Map<TracedAttempt, TracedAttempt | null>();
  for (const t of attempts) {
    let lease: TracedAttempt | null = null;
    if (t.chunkOf !== null) {
      for (const h of byAction.get(t.chunkOf) ?? []) {
        if (h.chunkOf === t.chunkOf && h.workerId === t.workerId && h.startedUs <= t.startedUs && (!lease || h.startedUs > lease.startedUs)) lease = h;
      }
    }
    leases.set(t, lease);
  }
  return leases;
}

/**
 * Reads `actions` and `action_attempts` and checks the queue's guarantees on
 * what happened:
 *
 * - **order (G3)**: no attempt of an action started before every smaller-id
 *   action of its group had reached a state that releases the group (done,
 *   cancelled, failed under `skip`) and its last attempt had ended;
 * - **overlaps (G2/G3)**: no two attempts of one group intersect in
 *   `[started_at, finished_at]` (attempts still `running` count as open-ended);
 *   which outcomes count is set by `overlapOutcomes`;
 * - **lost (G1)**: every expected action is `done`;
 * - **exactly once**: every `done` action has exactly one `done` trace row.
 *
 * The actions of one ordered chunk are leased together and recorded by one
 * statement: their attempts may overlap each other, and a member's attempt
 * may start before the earlier members of its chunk released the group. But
 * a member's attempt that released the group (the action's last, done,
 * cancelled or failed under `skip`) must not have been recorded ahead of an
 * earlier member: the earlier one released the group in that same chunk
 * too, else it is an order violation (the fence of the prefix).
 *
 * Times are compared in exact microseconds from the database clock
 * (`clock_timestamp()` stamps), so the check is as strict as the trace.
 *
 * @param db a pg client/pool, or a connection URL (a client is opened and closed).
 * @param options what to expect; see {@link TraceCheckOptions}.
 * @returns the report; use {@link formatTraceReport} in assertion messages.
 * @publicApi
 */
export async function checkTrace(db: Queryable | string, options: TraceCheckOptions = {}): Promise<TraceReport> {
  if (typeof db === 'string') {
    const client = new Client({ connectionString: db });
    await client.connect();
    try {
      await reachQueueSchema(client);
      return await checkTrace(client as unknown as Queryable, options);
    } finally {
      await client.end();
    }
  }
  const { rows: actionRows } = await db.query<{
    id: string;
    lock_id: string | null;
    type: string;
    status: string;
    on_failure: string;
    attempts: number;
    lease_owner: string | null;
    finished_us: string | null;
    attempt_started_us: string | null;
    chunk_of: string | null;
  }>(`SELECT id::text, lock_id::text, type, status, on_failure, attempts, lease_owner,
             ${US('finished_at')} AS finished_us, ${US('attempt_started_at')} AS attempt_started_us, ${CHUNK_OF('actions')}
      FROM actions ORDER BY actions.id`); // actions.id: the bigint, not the text output column
  const { rows: attemptRows } = await db.query<{
    action_id: string;
    lock_id: string | null;
    attempt: number;
    worker_id: string;
    started_us: string;
    finished_us: string;
    outcome: TraceOutcome;
    chunk_of: string | null;
  }>(`SELECT action_id::text, lock_id::text, attempt, worker_id, ${US('started_at')} AS started_us,
             ${US('finished_at')} AS finished_us, outcome, ${CHUNK_OF('action_attempts')}
      FROM action_attempts ORDER BY action_attempts.id`);

  const attempts: TracedAttempt[] = attemptRows.map((r) => ({
    actionId: r.action_id,
    lockId: r.lock_id,
    attempt: r.attempt,
    workerId: r.worker_id,
    startedUs: Number(r.started_us),
    finishedUs: Number(r.finished_us),
    outcome: r.outcome,
    chunkOf: r.chunk_of ?? null,
  }));
  for (const a of actionRows) {
    if (a.status === 'running' && a.attempt_started_us !== null) {
      attempts.push({
        actionId: a.id,
        lockId: a.lock_id,
        attempt: a.attempts,
        workerId: a.lease_owner ?? '?',
        startedUs: Number(a.attempt_started_us),
        finishedUs: Infinity,
        outcome: 'running',
        chunkOf: a.chunk_of ?? null,
      });
    }
  }
  const byAction = new Map<string, TracedAttempt[]>();
  for (const t of attempts) {
    const list = byAction.get(t.actionId) ?? [];
    list.push(t);
    byAction.set(t.actionId, list);
  }

  const actions: ActionRecord[] = actionRows.map((a) => {
    const releases = a.status === 'done' || a.status === 'cancelled' || (a.status === 'failed' && a.on_failure === 'skip');
    let releasedUs: number | null = null;
    if (releases) {
      releasedUs = a.finished_us === null ? 0 : Number(a.finished_us);
      for (const t of byAction.get(a.id) ?? []) releasedUs = Math.max(releasedUs, t.finishedUs);
    }
    return { id: a.id, lockId: a.lock_id, type: a.type, status: a.status, onFailure: a.on_failure, releasedUs };
  });

  const onlyGroups = options.lockIds ? new Set(options.lockIds) : null;
  const groups = new Map<string, ActionRecord[]>();
  for (const a of actions) {
    if (a.lockId === null || (onlyGroups && !onlyGroups.has(a.lockId))) continue;
    const list = groups.get(a.lockId) ?? [];
    list.push(a); // already in id order
    groups.set(a.lockId, list);
  }

  // The chunks: which attempts ran under one lease.
  const leases = chunkLeases(attempts, byAction);
  const sameChunk = (x: TracedAttempt, y: TracedAttempt): boolean => {
    const lease = leases.get(x) ?? null;
    return lease !== null && lease === leases.get(y);
  };
  /** Whether `t` is the attempt with which its action released the group: its last, of an action that did. */
  const released = (t: TracedAttempt, action: ActionRecord): boolean =>
    action.releasedUs !== null && (byAction.get(action.id) ?? []).every((x) => x.attempt <= t.attempt);
  /**
   * Whether attempt `t` of action `a` may start before `blocking` (an earlier
   * action of its group) released it: they ran in one chunk, and if `t`
   * released the group, `blocking` released it in that chunk as well.
   */
  const chunkExcuses = (t: TracedAttempt, a: ActionRecord, blocking: ActionRecord): boolean => {
    const mates = (byAction.get(blocking.id) ?? []).filter((b) => sameChunk(t, b));
    if (mates.length === 0) return false;
    return !released(t, a) || mates.some((b) => released(b, blocking));
  };
  // Order: walk each group in id order, keeping the latest release time of
  // the smaller ids and the first smaller id that never released the group.
  const orderViolations: OrderViolation[] = [];
  for (const [lockId, list] of groups) {
    let latest: ActionRecord | null = null;
    let unreleased: ActionRecord | null = null;
    for (const a of list) {
      for (const t of byAction.get(a.id) ?? []) {
        const blocking = unreleased ?? latest;
        if (blocking && chunkExcuses(t, a, blocking)) continue;
        if (unreleased) {
          orderViolations.push({ lockId, attempt: t, blockingActionId: unreleased.id, blockingStatus: unreleased.status, blockingReleasedUs: null });
        } else if (latest && t.startedUs < (latest.releasedUs as number)) {
          orderViolations.push({ lockId, attempt: t, blockingActionId: latest.id, blockingStatus: latest.status, blockingReleasedUs: latest.releasedUs });
        }
      }
      if (a.releasedUs === null) unreleased ??= a;
      else if (!latest || a.releasedUs > (latest.releasedUs as number)) latest = a;
    }
  }

  // Overlaps: sweep each group's attempts by start, against the attempt that
  // ends latest so far.
  const overlapOutcomes = new Set(options.overlapOutcomes ?? ALL_OUTCOMES);
  const overlaps: Overlap[] = [];
  const attemptsByGroup = new Map<string, TracedAttempt[]>();
  for (const t of attempts) {
    if (t.lockId === null || !groups.has(t.lockId) || !overlapOutcomes.has(t.outcome)) continue;
    const list = attemptsByGroup.get(t.lockId) ?? [];
    list.push(t);
    attemptsByGroup.set(t.lockId, list);
  }
  for (const [lockId, list] of attemptsByGroup) {
    list.sort((x, y) => x.startedUs - y.startedUs || x.finishedUs - y.finishedUs);
    let open: TracedAttempt | null = null;
    for (const t of list) {
      if (open && t.startedUs < open.finishedUs) {
        const excused = (open.outcome === 'lease_expired' && open.actionId === t.actionId && open.attempt < t.attempt) || sameChunk(open, t);
        if (!excused) overlaps.push({ lockId, first: open, second: t });
      }
      if (!open || t.finishedUs > open.finishedUs) open = t;
    }
  }

  // Lost and exactly-once.
  const expect = options.expectDone ?? 'all';
  const lost: LostAction[] = [];
  if (Array.isArray(expect)) {
    const byId = new Map(actions.map((a) => [a.id, a]));
    for (const id of expect) {
      const a = byId.get(id);
      if (!a) lost.push({ actionId: id, lockId: null, status: 'missing' });
      else if (a.status !== 'done') lost.push({ actionId: id, lockId: a.lockId, status: a.status });
    }
  } else if (expect !== 'none') {
    for (const a of actions) {
      const wanted = expect === 'all' || expect({ id: a.id, lockId: a.lockId, status: a.status, type: a.type });
      if (wanted && a.status !== 'done') lost.push({ actionId: a.id, lockId: a.lockId, status: a.status });
    }
  }
  const doneMoreThanOnce: DoneCountMismatch[] = [];
  const doneWithoutTrace: DoneCountMismatch[] = [];
  const doneByWorker: Record<string, number> = {};
  for (const a of actions) {
    const doneRows = (byAction.get(a.id) ?? []).filter((t) => t.outcome === 'done');
    for (const t of doneRows) doneByWorker[t.workerId] = (doneByWorker[t.workerId] ?? 0) + 1;
    if (doneRows.length > 1) doneMoreThanOnce.push({ actionId: a.id, doneRows: doneRows.length });
    else if (a.status === 'done' && doneRows.length === 0) doneWithoutTrace.push({ actionId: a.id, doneRows: 0 });
  }

  const attemptsByOutcome: Record<string, number> = {};
  for (const r of attemptRows) attemptsByOutcome[r.outcome] = (attemptsByOutcome[r.outcome] ?? 0) + 1;

  return {
    actionCount: actions.length,
    attemptCount: attemptRows.length,
    orderViolations,
    overlaps,
    lost,
    doneMoreThanOnce,
    doneWithoutTrace,
    doneByWorker,
    attemptsByOutcome,
    ok: orderViolations.length + overlaps.length + lost.length + doneMoreThanOnce.length + doneWithoutTrace.length === 0,
  };
}

/**
 * The most attempts each worker had running at one moment, from the trace
 * (`action_attempts`): +1 at an attempt's start, -1 at its end, an end
 * counted before a start at the same instant. For checking that an instance
 * never ran more than WORKER_CONCURRENCY at once.
 *
 * @returns worker id → peak number of attempts running at once.
 * @publicApi
 */
export async function peakRunningByWorker(db: Queryable): Promise<Record<string, number>> {
  const { rows } = await db.query<{ worker_id: string; peak: number }>(`
    WITH events AS (
      SELECT worker_id, started_at AS at, 1 AS delta FROM action_attempts
      UNION ALL
      SELECT worker_id, finished_at, -1 FROM action_attempts
    ), running AS (
      SELECT worker_id, sum(delta) OVER (PARTITION BY worker_id ORDER BY at, delta ROWS UNBOUNDED PRECEDING) AS n FROM events
    )
    SELECT worker_id, max(n)::int AS peak FROM running GROUP BY worker_id`);
  return Object.fromEntries(rows.map((r) => [r.worker_id, r.peak]));
}

/**
 * A short human-readable summary of a report (counts and the first few
 * problems of each kind), for assertion messages and logs.
 * @publicApi
 */
export function formatTraceReport(report: TraceReport, maxPerKind = 5): string {
  const t = (a: TracedAttempt) =>
    `action ${a.actionId} attempt ${a.attempt} (${a.outcome}, ${a.workerId}, ${a.startedUs}..${a.finishedUs === Infinity ? 'running' : a.finishedUs})`;
  const lines = [
    `${report.actionCount} actions, ${report.attemptCount} trace rows; ` +
      `${report.orderViolations.length} order violations, ${report.overlaps.length} overlaps, ${report.lost.length} lost, ` +
      `${report.doneMoreThanOnce.length} done more than once, ${report.doneWithoutTrace.length} done without trace`,
  ];
  for (const v of report.orderViolations.slice(0, maxPerKind)) {
    lines.push(
      `  order: group ${v.lockId}: ${t(v.attempt)} started before action ${v.blockingActionId} (${v.blockingStatus}) released the group at ${v.blockingReleasedUs ?? 'never'}`,
    );
  }
  for (const o of report.overlaps.slice(0, maxPerKind)) lines.push(`  overlap: group ${o.lockId}: ${t(o.first)} and ${t(o.second)}`);
  for (const l of report.lost.slice(0, maxPerKind)) lines.push(`  lost: action ${l.actionId} (group ${l.lockId}) is ${l.status}`);
  for (const d of report.doneMoreThanOnce.slice(0, maxPerKind)) lines.push(`  done ${d.doneRows} times: action ${d.actionId}`);
  for (const d of report.doneWithoutTrace.slice(0, maxPerKind)) lines.push(`  done without a done trace row: action ${d.actionId}`);
  return lines.join('\n');
}

/**
 * When the connection's search_path does not reach the queue's tables (a
 * database the queue migrated into its own schema, `action_queue`), sets it
 * to the schema the service chooses (src/database/queue-schema-choice.ts), so
 * the trace's unqualified names resolve.
 */
async function reachQueueSchema(client: Client): Promise<void> {
  const { rows } = await client.query<{ found: boolean }>(`SELECT to_regclass('action_attempts') IS NOT NULL AS found`);
  if (rows[0].found) return;
  const { schema } = await chooseQueueSchema(undefined, async (sql, params) => (await client.query(sql, params)).rows);
  await client.query(`SELECT set_config('search_path', quote_ident($1), false)`, [schema]);
}
