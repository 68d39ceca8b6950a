import type { LoggerService } from '@nestjs/common';
import { POOL_CLOSE_TIMEOUT_MS } from '../database/queue-database.closer';
import { LISTEN_STOP_TIMEOUT_MS } from '../queue/wake/notification-listener.service';
import { abortedAttemptsWaitMs } from '../queue/worker/attempts-drain';
import { JOB_STOP_TIMEOUT_MS, pendingShutdownSteps, THREAD_STOP_TIMEOUT_MS } from '../shutdown-steps';
import { HTTP_CLOSE_TIMEOUT_MS } from './bounded-close-express-adapter';

/** Allowance for stopping the embedded PostgreSQL (`pg_ctl stop -m fast`) after the app has closed (ms). */
export const EMBEDDED_STOP_ALLOWANCE_MS = 10_000;
/** Beyond the sum of the steps' own bounds: timers firing late on a busy machine, logging (ms). */
const DEADLINE_MARGIN_MS = 1_000;

/**
 * The longest a shutdown of the service may take (ms): the sum of the bound
 * of every step, each of which gives up by itself within it, whatever their
 * order: the runs in flight of the schedule ticker, retention and the reaper
 * (JOB_STOP_TIMEOUT_MS each), the LISTEN connection's close, the handlers'
 * SHUTDOWN_TIMEOUT_MS, then their abort and the release of their actions
 * (the abort grace, at most 2 s, plus LEASE_MS while the database does not
 * answer), the HTTP requests in flight, the two kinds of threads, the pool's
 * close, the embedded PostgreSQL's stop when there is one, and a margin.
 * That is SHUTDOWN_TIMEOUT_MS + LEASE_MS + at most 12 s (22 s with the
 * embedded PostgreSQL).
 *
 * @param settings SHUTDOWN_TIMEOUT_MS and LEASE_MS (ms).
 * @param embedded whether the embedded PostgreSQL is stopped too.
 */
export function shutdownDeadlineMs(settings: { SHUTDOWN_TIMEOUT_MS: number; LEASE_MS: number }, embedded: boolean): number {
  return (
    3 * JOB_STOP_TIMEOUT_MS +
    LISTEN_STOP_TIMEOUT_MS +
    settings.SHUTDOWN_TIMEOUT_MS +
    abortedAttemptsWaitMs(settings.LEASE_MS) +
    HTTP_CLOSE_TIMEOUT_MS +
    2 * THREAD_STOP_TIMEOUT_MS +
    POOL_CLOSE_TIMEOUT_MS +
    (embedded ? EMBEDDED_STOP_ALLOWANCE_MS : 0) +
    DEADLINE_MARGIN_MS
  );
}

/**
 * The backstop of a shutdown: when it has not ended `deadlineMs` after this
 * call, logs (at error level) the steps still pending (pendingShutdownSteps)
 * and calls `exit(1)`. Every step of the queue's shutdown is bounded by
 * itself; this catches one that is not (an app's own hook, say), so that a
 * process told to stop always does. The timer keeps the process alive: the
 * shutdown ends by an explicit exit, whichever comes first.
 *
 * @param deadlineMs the longest the shutdown may take (ms), e.g. {@link shutdownDeadlineMs}.
 * @param logger where the error line goes.
 * @param exit ends the process with a code (default `process.exit`).
 * @returns a function that disarms it (for a shutdown that ended without exiting).
 */
export function armShutdownDeadline(deadlineMs: number, logger: LoggerService, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const timer = setTimeout(() => {
    const pending = pendingShutdownSteps();
    logger.error(
      `Shutdown did not end within ${deadlineMs} ms (SHUTDOWN_TIMEOUT_MS + LEASE_MS + each step's grace, docs/settings.md); ` +
        `still pending: ${pending.length > 0 ? pending.join('; ') : 'no step of the queue (a hook of another module?)'}; exiting with code 1`,
    );
    exit(1);
  }, deadlineMs);
  return () => clearTimeout(timer);
}
