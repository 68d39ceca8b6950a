import { waitAtMost } from './wait-at-most';

/**
 * Longest wait, on shutdown, for a background job's run in flight (a
 * schedule ticker round, a retention run, a reaper round) to end (ms). A run
 * is a few short statements; one that takes longer is waiting on a database
 * that stopped answering, and is left behind: its transaction is rolled back
 * when its connection goes.
 */
export const JOB_STOP_TIMEOUT_MS = 1_000;

/**
 * Longest wait, on shutdown, for the threads of the service (handler threads,
 * the event-loop watchdog's) to terminate (ms). Terminating stops JavaScript
 * at once, but a thread inside a blocking native call stops only when it
 * returns; such a thread is left to the process's exit.
 */
export const THREAD_STOP_TIMEOUT_MS = 1_000;

/** The shutdown steps waiting now, by an id of their own (several may share a name). */
const pending = new Map<number, string>();
let nextStepId = 0;

/**
 * Waits for one step of a shutdown, at most `limitMs`, and names it while it
 * waits: every wait of the queue's shutdown hooks goes through here (or
 * through {@link waitAtMost}), so none can hang on a database that stopped
 * answering, a stuck handler or a thread, and the service starter's deadline
 * can say which steps were still pending when it gave up
 * ({@link pendingShutdownSteps}). Process-wide, as signals and exit codes are.
 *
 * @param name what is waited on, as an operator reads it, e.g. `worker: running handlers`.
 * @param work the step; a rejection counts as its end (the caller reports
 *   failures itself, before handing the promise here).
 * @param limitMs longest wait (ms).
 * @param logger when given, warns `<name>: not ended within <limitMs> ms of shutdown; leaving it` when the time runs out.
 * @returns true when `work` settled in time, false when the time ran out (it is left to settle alone); never rejects.
 */
export async function shutdownStep(name: string, work: Promise<unknown>, limitMs: number, logger?: { warn(message: string): void }): Promise<boolean> {
  const id = nextStepId++;
  pending.set(id, name);
  try {
    const ended = await waitAtMost(
      work.catch(() => undefined),
      limitMs,
    );
    if (!ended) logger?.warn(`${name}: not ended within ${limitMs} ms of shutdown; leaving it`);
    return ended;
  } finally {
    pending.delete(id);
  }
}

/**
 * Names of the shutdown steps of this process waiting now (see
 * {@link shutdownStep}), the oldest first; empty when none is.
 */
export function pendingShutdownSteps(): string[] {
  return [...pending.values()];
}
