import type { Worker } from 'node:worker_threads';

/** After this long waiting for a stopped handler thread to exit, say so once (ms); the wait goes on. */
const SLOW_EXIT_WARNING_MS = 5_000;

/** What ThreadExits needs of a thread pool (Piscina's API; no import of its types, which the API report cannot read). */
export interface WatchablePool {
  /** Piscina's `workerCreate` event, with the new thread's id. */
  on(event: 'workerCreate', listener: (created: { id: number }) => void): unknown;
  /** The pool's threads now. */
  readonly threads: Worker[];
}

/** A handler thread of a pool, until it has exited. */
interface WatchedThread {
  worker: Worker;
  /** Resolves on the Worker's `exit` event: no code of it can run any more. */
  exited: Promise<void>;
}

/**
 * The handler threads of the service's pools, by thread id, until each has
 * exited: an attempt that ends other than by its thread's own answer (a stray
 * error, a timeout, an abort, a thread that died) ends only once the thread
 * it ran in has exited, so its handler can run no more code while a retry or
 * the next action of its group runs (G2). Only the Worker's `exit` event says
 * that: a terminate() call or a rejected task does not.
 */
export class ThreadExits {
  private readonly threads = new Map<number, WatchedThread>();

  /** @param warn called once per thread that has not exited SLOW_EXIT_WARNING_MS after {@link stop}. */
  constructor(private readonly warn: (message: string) => void) {}

  /**
   * Watches every thread `pool` starts (Piscina's `workerCreate`, emitted
   * before the thread gets its first task).
   */
  watch(pool: WatchablePool): void {
    pool.on('workerCreate', (created: { id: number }) => {
      const worker = pool.threads.find((w) => w.threadId === created.id);
      if (!worker || this.threads.has(created.id)) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      this.threads.set(created.id, { worker, exited });
      void exited.then(() => this.threads.delete(created.id));
    });
  }

  /**
   * Terminates thread `threadId` (a no-op when it is terminating already) and
   * waits, with no time limit, for it to exit. The caller's lease stays
   * renewed meanwhile: a thread stuck in a blocking native call holds its
   * group until the call returns, which is safer than letting the group run twice.
   *
   * @param threadId the thread's id (worker_threads `threadId`).
   * @param what names the attempt for the slow-exit warning.
   * @returns once the thread has exited (at once for a thread not watched or gone already).
   */
  async stop(threadId: number, what: string): Promise<void> {
    const thread = this.threads.get(threadId);
    if (!thread) return;
    void thread.worker.terminate().catch(() => undefined);
    const slow = setTimeout(
      () =>
        this.warn(`Handler thread ${threadId} of ${what} has not exited ${SLOW_EXIT_WARNING_MS} ms after it was stopped; its group stays held until it does`),
      SLOW_EXIT_WARNING_MS,
    );
    slow.unref();
    try {
      await thread.exited;
    } finally {
      clearTimeout(slow);
    }
  }
}
