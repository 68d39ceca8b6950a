import { Logger } from '@nestjs/common';
import { shutdownStep } from '../../shutdown-steps';
import { abortGraceMs } from '../attempt/handler-drive';
import { AttemptExecutor } from '../attempt/attempt-executor.service';
import { ShutdownError } from '../instance/abort-reasons';
import { LeaseKeeper } from '../lease/lease-keeper.service';

/**
 * How long shutdown waits, after aborting the handlers still running at
 * SHUTDOWN_TIMEOUT_MS, for their attempts to end (ms): the abort grace (a
 * handler that honours its signal returns within it; one that does not is
 * given up on) plus LEASE_MS, the longest the release of an action is
 * retried while the database does not answer (until its lease could expire:
 * AttemptFinisher). Past it the attempts still ending are left behind and
 * their leases expire on their own.
 *
 * @param leaseMs the LEASE_MS setting (ms).
 */
export function abortedAttemptsWaitMs(leaseMs: number): number {
  return abortGraceMs(leaseMs) + leaseMs;
}

/**
 * The attempts' part of the worker's shutdown: lets the running handlers
 * finish for `shutdownTimeoutMs`, then aborts those still running (their
 * actions are released, ShutdownError) and waits at most
 * {@link abortedAttemptsWaitMs} for their attempts to end; past that it
 * leaves them (their leases expire). Never rejects; each wait is bounded.
 *
 * @param executor whose attempts are waited for.
 * @param leases aborts every held attempt.
 * @param timing SHUTDOWN_TIMEOUT_MS and LEASE_MS (ms).
 * @param logger where the aborts and the attempts left behind are told.
 */
export async function drainAttempts(
  executor: AttemptExecutor,
  leases: LeaseKeeper,
  timing: { shutdownTimeoutMs: number; leaseMs: number },
  logger: Logger,
): Promise<void> {
  if (await shutdownStep('worker: running handlers finishing', executor.whenIdle(), timing.shutdownTimeoutMs)) return;
  logger.warn(`Shutdown timeout: aborting ${executor.activeAttempts} running handler(s) and releasing their actions`);
  leases.abortAll(() => new ShutdownError());
  const waitMs = abortedAttemptsWaitMs(timing.leaseMs);
  if (!(await shutdownStep('worker: aborted handlers stopping and their actions being released', executor.whenIdle(), waitMs))) {
    logger.warn(
      `Shutdown: ${executor.activeAttempts} attempt(s) still not ended ${waitMs} ms after the abort (a handler ignoring its signal, or a database not answering); leaving them, their leases expire`,
    );
  }
}
