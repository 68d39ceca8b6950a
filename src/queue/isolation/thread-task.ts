import type { BackOffRequest } from '../../handlers/retry-after.error';
import type { MessagePort } from 'node:worker_threads';
import type { QueuedAction } from '../../handlers/action-context.interface';

/**
 * Exit code of a handler thread that retires itself after a stray error (see
 * handler-thread.entry.ts). An attempt the pool had just given it ends
 * released, uncharged: it is not that attempt's error.
 */
export const RETIRED_THREAD_EXIT_CODE = 86;

/** {@link ThreadTask.takenBy} of a task the service withdrew: no thread may take it any more. */
export const TASK_WITHDRAWN = -1;

/** One attempt sent to a handler thread. */
export interface ThreadTask {
  /** The file that declares the handler (loaded in the thread). */
  file: string;
  type: string;
  /** The action without its payload, which travels as {@link ThreadTask.payloadJson}. */
  action: Omit<QueuedAction, 'payload'>;
  /**
   * The payload as JSON text: a thread message is structured-cloned, which
   * recurses and overflows the stack on a payload nested thousands of levels
   * deep; JSON.parse in the thread does not.
   */
  payloadJson: string;
  workerId: string;
  /**
   * Gets one message when the handler starts, after the thread has loaded its
   * file and built it (a cold thread takes most of a second): the attempt's
   * timeout counts from then.
   */
  startedPort: MessagePort;
  /**
   * An ordered chunk (ChunkHandlerHost.handleChunk): its actions after the
   * first (which is {@link ThreadTask.action}), and their payloads as JSON text.
   */
  members?: { action: Omit<QueuedAction, 'payload'>; payloadJson: string }[];
  /**
   * One Int32 in shared memory: 0 until a thread takes the task, then that
   * thread's id; {@link TASK_WITHDRAWN} once the service gave up on it. Set
   * with compareExchange on both sides, so either the service knows which
   * thread to wait for, or no thread will ever run the handler.
   */
  takenBy: Int32Array;
}

/** How one action of a chunk ended in its thread: its result as JSON text, or its error described. */
export type ThreadChunkOutcome =
  { ok: true; resultJson: string } | { ok: false; message: string; stack: string | null; permanent: boolean; backOff: BackOffRequest | null };

/** How a handler ran in its thread: the result as JSON text, or the error described. */
export type ThreadTaskAnswer =
  | { ok: true; resultJson: string }
  | { ok: true; chunk: ThreadChunkOutcome[] }
  | { ok: false; message: string; stack: string | null; permanent: boolean; backOff: BackOffRequest | null };

/**
 * What a handler thread answers: how the handler ran (`retiring` when a stray
 * error was raised in the thread: the service then stops it and waits for its
 * exit before the attempt ends), or `refused` for a task it did not take (it
 * was retiring, or the task was withdrawn): that handler never ran.
 */
export type ThreadTaskResult = (ThreadTaskAnswer & { retiring?: true }) | { refused: true };
