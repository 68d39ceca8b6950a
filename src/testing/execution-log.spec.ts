import { Execution, ExecutionEvent, executionOverlaps, executionsPastDeadline, pairExecutions } from './execution-log';

/**
 * The execution-log checks, fed known violations (they are what the chaos,
 * watchdog and self-fencing specs trust to see a handler that outlived its
 * lease). Seen to fail against deliberately broken checks, one at a time:
 * the overlap loop comparing start to start (`list[j].start < list[i].start`),
 * and the deadline compared to Infinity instead of the deadline.
 */

const ev = (id: string, lock: string | null, attempt: number, pid: number, e: 'start' | 'end', t: number): ExecutionEvent => ({
  id,
  lock,
  attempt,
  pid,
  ev: e,
  t,
});
const run = (id: string, lock: string | null, attempt: number, start: number, end: number, pid = 1): Execution => ({ id, lock, attempt, pid, start, end });

describe('execution log checks', () => {
  it('ends an execution in a worker thread that logged no end at its thread exit, before its process died', () => {
    const inThread = (e: ExecutionEvent, thread: number): ExecutionEvent => ({ ...e, thread });
    const exit: ExecutionEvent = { id: '', lock: null, attempt: 0, pid: 10, ev: 'exit', t: 250, thread: 4 };
    const events = [inThread(ev('1', '7', 1, 10, 'start', 100), 4), exit, inThread(ev('1', '7', 2, 10, 'start', 240), 5)];
    const executions = pairExecutions(events, new Map([[10, 900]]));
    expect(executions).toEqual([
      { ...run('1', '7', 1, 100, 250, 10), thread: 4 },
      { ...run('1', '7', 2, 240, 900, 10), thread: 5 },
    ]);
    expect(executionOverlaps(executions)).toEqual([expect.objectContaining({ lock: '7', overlapMs: 10 })]);
  });

  it('pairs start and end events per action, attempt and process; a dead process ends its open executions', () => {
    const events = [ev('1', '7', 1, 10, 'start', 100), ev('2', '8', 1, 11, 'start', 110), ev('1', '7', 1, 10, 'end', 200), ev('3', '9', 1, 10, 'start', 300)];
    expect(pairExecutions(events, new Map([[11, 500]]))).toEqual([
      run('1', '7', 1, 100, 200, 10),
      run('2', '8', 1, 110, 500, 11),
      run('3', '9', 1, 300, Infinity, 10),
    ]);
  });

  it('finds no overlap in a group run one after the other, or in two groups run side by side', () => {
    expect(executionOverlaps([run('1', '7', 1, 100, 200), run('2', '7', 1, 200, 300), run('3', '8', 1, 100, 300)])).toEqual([]);
  });

  it('catches two actions of one group running at once', () => {
    const overlaps = executionOverlaps([run('2', '7', 1, 150, 400, 2), run('1', '7', 1, 100, 200, 1)]);
    expect(overlaps).toEqual([expect.objectContaining({ lock: '7', overlapMs: 50 })]);
    expect([overlaps[0].first.id, overlaps[0].second.id]).toEqual(['1', '2']);
  });

  it('catches a handler still running after its lease moved on: the same action, two attempts at once', () => {
    // The trace would excuse this (lease_expired then retry); the execution log must not.
    const overlaps = executionOverlaps([run('1', '7', 1, 100, Infinity, 1), run('1', '7', 2, 3_000, 3_100, 2)]);
    expect(overlaps).toEqual([expect.objectContaining({ lock: '7', overlapMs: 100 })]);
  });

  it('checks an action without a group against its own other executions only', () => {
    expect(executionOverlaps([run('1', null, 1, 100, 300), run('2', null, 1, 100, 300)])).toEqual([]);
    expect(executionOverlaps([run('1', null, 1, 100, 300), run('1', null, 2, 200, 300)])).toHaveLength(1);
  });

  it('catches an attempt that ran past its deadline, or never stopped', () => {
    const executions = [run('1', '7', 1, 100, 900), run('1', '7', 2, 1_000, 1_200), run('2', '8', 1, 100, Infinity), run('3', '9', 1, 0, 5_000)];
    const late = executionsPastDeadline(executions, [
      { id: '1', attempt: 1, deadlineMs: 1_000 },
      { id: '1', attempt: 2, deadlineMs: 1_100 },
      { id: '2', attempt: 1, deadlineMs: 1_000 },
    ]);
    expect(late.map((l) => `${l.execution.id}#${l.execution.attempt} ${l.lateMs}`)).toEqual(['1#2 100', '2#1 Infinity']);
  });
});
