import { AttemptEnd } from './attempt-end';

/** How the attempts of an ordered chunk ended (AttemptRunner.runChunk; see AttemptRun). */
export interface ChunkRun {
  /** One per row of the chunk, in its order; null: nothing to record for it. */
  ends: (AttemptEnd | null)[];
  settled: Promise<void>;
  settledAtEnd: boolean;
  cause: unknown;
}

/** How an attempt ended (AttemptRunner.run), and when its handler's promise settles. */
export interface AttemptRun {
  /** null: nothing to record (the lease was lost, or it must expire: a cancelled handler that did not stop). */
  end: AttemptEnd | null;
  /** Resolves when the handler's promise settles (at once for a handler that returned). */
  settled: Promise<void>;
  /** Whether it had settled when the attempt ended. */
  settledAtEnd: boolean;
  /** The error the handler threw or left behind, for the log (null when done). */
  cause: unknown;
  /** The end (`done`) was recorded by the handler's own `ctx.transaction`: the worker records nothing more. */
  recordedInTransaction?: boolean;
}
