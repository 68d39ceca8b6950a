import { existsSync, readFileSync } from 'node:fs';
import { ExecutionEvent } from '../fixtures/execution-log';

/** One real execution of a handler, from the execution log. */
export interface Execution {
  id: string;
  lock: string | null;
  attempt: number;
  pid: number;
  start: number;
  /** When it stopped: its end event, else the death of its process, else Infinity. */
  end: number;
}

/** Two executions of one group that really ran at the same time. */
export interface ExecutionOverlap {
  lock: string;
  first: Execution;
  second: Execution;
  overlapMs: number;
}

/**
 * Reads the execution log written by the fixture handlers.
 * @param deaths when each process died (pid → Date.now() ms), for executions that never logged an end.
 */
export function readExecutions(file: string, deaths: Map<number, number> = new Map()): Execution[] {
  if (!existsSync(file)) return [];
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ExecutionEvent);
  const open = new Map<string, Execution>();
  const all: Execution[] = [];
  for (const e of events) {
    const key = `${e.id}:${e.attempt}:${e.pid}`;
    if (e.ev === 'start') {
      const execution = { id: e.id, lock: e.lock, attempt: e.attempt, pid: e.pid, start: e.t, end: deaths.get(e.pid) ?? Infinity };
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

/** Pairs of executions of one group (or of one action) that overlap in real time. */
export function executionOverlaps(executions: Execution[]): ExecutionOverlap[] {
  const byGroup = new Map<string, Execution[]>();
  for (const e of executions) {
    const key = e.lock ?? `action ${e.id}`;
    byGroup.set(key, [...(byGroup.get(key) ?? []), e]);
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
