import type { BackOffRequest } from '../../handlers/retry-after.error';
import type { MessagePort } from 'node:worker_threads';
import type { QueuedAction } from '../../handlers/action-context.interface';

/**
 * Exit code of a handler thread that retires itself after a stray error (see
 * handler-thread.entry.ts). An attempt the pool had just given it ends
 * released, uncharged: it is not that attempt's error.
 */
export const RETIRED_THREAD_EXIT_CODE = 86;

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
}

/** How one action of a chunk ended in its thread: its result as JSON text, or its error described. */
export type ThreadChunkOutcome =
  { ok: true; resultJson: string } | { ok: false; message: string; stack: string | null; permanent: boolean; backOff: BackOffRequest | null };

/** What a handler thread answers: the result as JSON text, or the error described. */
export type ThreadTaskResult =
  | { ok: true; resultJson: string }
  | { ok: true; chunk: ThreadChunkOutcome[] }
  | { ok: false; message: string; stack: string | null; permanent: boolean; backOff: BackOffRequest | null };
