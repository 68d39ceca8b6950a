import type { QueuedAction } from '../../handlers/action-context.interface';

/** One attempt sent to a handler thread. */
export interface ThreadTask {
  /** The file that declares the handler (loaded in the thread). */
  file: string;
  type: string;
  action: QueuedAction;
  workerId: string;
}

/** What a handler thread answers: the result as JSON text, or the error described. */
export type ThreadTaskResult = { ok: true; resultJson: string } | { ok: false; message: string; stack: string | null; permanent: boolean };
