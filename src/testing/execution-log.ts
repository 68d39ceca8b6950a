/**
 * The execution log: what handlers really ran, written by the handlers
 * themselves, as opposed to the trace (`action_attempts`), which records
 * what the queue believes. A handler still running after its lease was lost
 * shows up here and nowhere else, so overlap checks that matter run on this
 * log. Published in `ordered-action-queue/testing` so that users can log
 * their own handlers the same way.
 */
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { isMainThread, threadId, Worker } from 'node:worker_threads';

/**
 * One line of the execution log: a handler really starting or stopping.
 * @publicApi
 */
export interface ExecutionEvent {
  /** The action's id ('' for `exit`). */
  id: string;
  lock: string | null;
  attempt: number;
  pid: number;
  /**
   * `start`/`end` of a handler; `exit`: worker thread `thread` of process
   * `pid` has exited (written by {@link logThreadExits}), so no handler can
   * run in it any more.
   */
  ev: 'start' | 'end' | 'exit';
  /** Date.now() (ms); every process of a test runs on one host. */
  t: number;
  /** The worker thread's id, for a handler run in a worker thread (and for `exit`). */
  thread?: number;
}

/**
 * One real execution of a handler, from the execution log.
 * @publicApi
 */
export interface Execution {
  id: string;
  lock: string | null;
  attempt: number;
  pid: number;
  /** The worker thread it ran in, if it did. */
  thread?: number;
  /** When it started (Date.now() ms). */
  start: number;
  /** When it stopped: its end event, else the exit of its thread, else the death of its process, else Infinity. */
  end: number;
}

/**
 * Two executions of one group (or of one action without a group) that really ran at the same time.
 * @publicApi
 */
export interface ExecutionOverlap {
  lock: string;
  first: Execution;
  second: Execution;
  /** How long they ran together (ms; Infinity when both are still running). */
  overlapMs: number;
}

/**
 * The time by which an attempt had to stop: for example the database's
 * `lease_expires_at` of that attempt, minus the documented self-fencing margin.
 * @publicApi
 */
export interface ExecutionDeadline {
  id: string;
  attempt: number;
  /** Epoch ms. */
  deadlineMs: number;
}

/**
 * An execution that ended after its deadline (or never ended).
 * @publicApi
 */
export interface LateExecution {
  execution: Execution;
  deadlineMs: number;
  /** How late it stopped (ms, > 0; Infinity when it never stopped). */
  lateMs: number;
}

/**
 * Appends one event to the file named by the environment variable EXEC_LOG
 * (one JSON line, written synchronously with O_APPEND, so lines of concurrent
 * processes never mix). No-op when EXEC_LOG is unset.
 *
 * @param action the action being run (`id`, `lockId`, `attempt`).
 * @param ev `start` when the handler begins, `end` when it settles (also when it throws).
 * @publicApi
 */
export function logExecution(action: { id: string; lockId: string | null; attempt: number }, ev: 'start' | 'end'): void {
  const file = process.env.EXEC_LOG;
  if (!file) return;
  const line: ExecutionEvent = { id: action.id, lock: action.lockId, attempt: action.attempt, pid: process.pid, ev, t: Date.now() };
  if (!isMainThread) line.thread = threadId;
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

let threadExitsLogged = false;

/**
 * From now on, appends an `exit` event to the execution log (EXEC_LOG) when
 * any worker thread of this process exits (its Worker's `exit` event, seen
 * from the thread that created it): the end of an execution in that thread
 * that never logged one (terminated, or its thread exited under it). Call it
 * once, in the main thread of the service process, before handlers run.
 * No-op when EXEC_LOG is unset or when called again.
 * @publicApi
 */
export function logThreadExits(): void {
  const file = process.env.EXEC_LOG;
  if (!file || threadExitsLogged) return;
  threadExitsLogged = true;
  // Published by Node for every Worker created in this process (Node >= 16.?; checked on 20).
  subscribe('worker_threads', (message) => {
    const worker = (message as { worker?: Worker }).worker;
    if (!worker) return;
    const thread = worker.threadId;
    worker.once('exit', () => {
      const line: ExecutionEvent = { id: '', lock: null, attempt: 0, pid: process.pid, ev: 'exit', t: Date.now(), thread };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    });
  });
}

/**
 * Pairs the start and end events of an execution log into executions.
 *
 * @param events the log's events, in the order they were written; an
 *   execution in a worker thread that logged no end ends at its thread's `exit` event.
 * @param deaths when each process died (pid → Date.now() ms): the end of its executions that never logged one.
 * @returns one execution per start event, in log order.
 * @publicApi
 */
export function pairExecutions(events: readonly ExecutionEvent[], deaths: ReadonlyMap<number, number> = new Map()): Execution[] {
  const threadExits = new Map<string, number>();
  for (const e of events) if (e.ev === 'exit') threadExits.set(`${e.pid}:${e.thread}`, e.t);
  const open = new Map<string, Execution>();
  const all: Execution[] = [];
  for (const e of events) {
    if (e.ev === 'exit') continue;
    const key = `${e.id}:${e.attempt}:${e.pid}`;
    if (e.ev === 'start') {
      const exit = e.thread === undefined ? undefined : threadExits.get(`${e.pid}:${e.thread}`);
      const execution: Execution = { id: e.id, lock: e.lock, attempt: e.attempt, pid: e.pid, start: e.t, end: exit ?? deaths.get(e.pid) ?? Infinity };
      if (e.thread !== undefined) execution.thread = e.thread;
      open.set(key, execution);
      all.push(execution);
    } else {
      const execution = open.get(key);
      if (execution) execution.end = e.t;
      open.delete(key);
    }
  }
  return all;
}

/**
 * Reads an execution log file written by {@link logExecution} (none yet: no executions).
 * @param deaths when each process died (pid → Date.now() ms), for executions that never logged an end.
 * @publicApi
 */
export function readExecutions(file: string, deaths: ReadonlyMap<number, number> = new Map()): Execution[] {
  if (!existsSync(file)) return [];
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ExecutionEvent);
  return pairExecutions(events, deaths);
}

/**
 * Pairs of executions of one group (or of one action, for actions without a
 * group) that overlap in real time: G2/G3 as the handlers saw it. Touching
 * intervals (one ends at the millisecond the other starts) do not count.
 * @publicApi
 */
export function executionOverlaps(executions: readonly Execution[]): ExecutionOverlap[] {
  const byGroup = new Map<string, Execution[]>();
  for (const e of executions) {
    const key = e.lock ?? `action ${e.id}`;
    const list = byGroup.get(key) ?? [];
    list.push(e);
    byGroup.set(key, list);
  }
  const overlaps: ExecutionOverlap[] = [];
  for (const [lock, list] of byGroup) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length && list[j].start < list[i].end; j++) {
        overlaps.push({ lock, first: list[i], second: list[j], overlapMs: Math.min(list[i].end, list[j].end) - list[j].start });
      }
    }
  }
  return overlaps;
}

/**
 * Executions that stopped after the deadline of their attempt: a handler
 * still running once its lease could expire elsewhere (G2 seen from the
 * handler). Executions of attempts without a deadline are not checked.
 *
 * @param deadlines per attempt, e.g. `lease_expires_at - LEASE_MS/6` read from the database.
 * @publicApi
 */
export function executionsPastDeadline(executions: readonly Execution[], deadlines: readonly ExecutionDeadline[]): LateExecution[] {
  const byAttempt = new Map(deadlines.map((d) => [`${d.id}:${d.attempt}`, d.deadlineMs]));
  const late: LateExecution[] = [];
  for (const execution of executions) {
    const deadlineMs = byAttempt.get(`${execution.id}:${execution.attempt}`);
    if (deadlineMs !== undefined && execution.end > deadlineMs) late.push({ execution, deadlineMs, lateMs: execution.end - deadlineMs });
  }
  return late;
}
