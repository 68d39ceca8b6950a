import { HandlerTimeoutError } from '../../handlers/handler-timeout.error';
import { RegisteredHandler } from '../../handlers/action-handlers.registry';
import { waitAtMost } from '../../wait-at-most';
import { CancelRequestedError, ShutdownError, StrayHandlerError } from '../instance/abort-reasons';
import { HandlerStop } from '../instance/handler-stop';
import { describeThrown } from '../outcome/thrown-value';

/** Longest wait for a handler to stop after a cancel or shutdown abort, before giving up on it (ms). */
const MAX_ABORT_GRACE_MS = 2_000;

/**
 * How long a handler gets to stop after a cancel or shutdown abort before its
 * attempt ends without it (ms): a third of the lease, at most 2 s.
 *
 * @param leaseMs the LEASE_MS setting (ms).
 */
export function abortGraceMs(leaseMs: number): number {
  return Math.min(MAX_ABORT_GRACE_MS, Math.floor(leaseMs / 3));
}

/** After any other abort, how long a handler that honours its signal gets to return before it counts as stuck (ms). */
const SETTLE_GRACE_MS = 50;
export const SETTLED: Promise<void> = Promise.resolve();

/** How a handler's promise settled. */
export type HandlerOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How a handler run ended: settled first, or aborted first (then how it settled within the grace, if it did). */
export type Driven =
  | { aborted: false; outcome: HandlerOutcome; settled: Promise<void>; settledAtEnd: true }
  | { aborted: true; reason: unknown; stray: unknown; settled: Promise<void>; settledAtEnd: boolean; outcome: HandlerOutcome | undefined };

/**
 * How long a handler thread may take to load and build its handler before
 * the attempt's timeout starts counting anyway (ms): a cold thread loads the
 * handler's file and its Nest module (most of a second on a small machine),
 * which is not the handler's time; a thread that never gets there still ends.
 */
const THREAD_START_ALLOWANCE_MS = 30_000;

/**
 * Starts a handler and waits for it to settle or, sooner, for its signal
 * to abort (the timeout, a stray error, a lease lost or expiring, a
 * cancel, shutdown); after an abort, waits the grace for it to settle
 * (for a thread-isolated handler: until its thread has exited).
 *
 * @param registered the handler and its options (`timeoutMs`, `isolation`).
 * @param handlerStop the attempt's stop: the timeout and a stray error stop it too.
 * @param graceMs the grace after a cancel or shutdown (ms), `abortGraceMs(LEASE_MS)`.
 * @param start starts the handler with its signal, the stray-error callback
 *   (true: the error was charged to this attempt) and the thread-started callback.
 * @returns how the run ended; never rejects.
 */
export async function driveHandler(
  registered: RegisteredHandler,
  handlerStop: HandlerStop,
  graceMs: number,
  start: (signal: AbortSignal, onStray: (error: unknown) => boolean, onThreadStarted: () => void) => Promise<unknown>,
): Promise<Driven> {
  let stray: unknown;
  let ended = false;
  const signal = handlerStop.signal;
  const timeoutMs = registered.options.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  /** (Re)starts the timeout: `timeoutMs` from the handler's start, plus `allowanceMs` for a thread to get there. */
  const startTimeout = (allowanceMs: number) => {
    clearTimeout(timer);
    if (timeoutMs && !ended) timer = setTimeout(() => handlerStop.stop(new HandlerTimeoutError(timeoutMs)), timeoutMs + allowanceMs);
  };
  startTimeout(registered.options.isolation === 'thread' ? THREAD_START_ALLOWANCE_MS : 0);
  let settledAtEnd = false;
  let settledWith: HandlerOutcome | undefined;
  const outcome = start(
    signal,
    (error) => {
      if (ended || signal.aborted) return false;
      stray = error;
      handlerStop.stop(new StrayHandlerError(describeThrown(error).message));
      return true;
    },
    () => startTimeout(0),
  ).then(
    (value) => ((settledAtEnd = true), (settledWith = { ok: true as const, value })),
    (error: unknown) => ((settledAtEnd = true), (settledWith = { ok: false as const, error })),
  );
  // The handler's outcome or an abort, whichever comes first (one promise, one listener).
  const first = await new Promise<HandlerOutcome | 'aborted'>((resolve) => {
    void outcome.then(resolve);
    if (signal.aborted) resolve('aborted');
    else handlerStop.onStop(() => resolve('aborted'));
  });
  clearTimeout(timer);
  ended = true;
  if (first === 'aborted' || signal.aborted) {
    const reason: unknown = signal.reason;
    const settled = outcome.then(() => undefined);
    // A thread-isolated handler settles once its thread has exited
    // (HandlerThreads): waited for in full, however long, so that its code
    // never runs beside the next attempt of its group (G2). The lease is
    // renewed meanwhile. A handler in this process cannot be stopped: it gets a grace.
    if (registered.options.isolation === 'thread') await settled;
    else await waitAtMost(settled, reason instanceof ShutdownError || reason instanceof CancelRequestedError ? graceMs : SETTLE_GRACE_MS);
    return { aborted: true, reason, stray, settled, settledAtEnd, outcome: settledWith };
  }
  return { aborted: false, outcome: first, settled: SETTLED, settledAtEnd: true };
}
