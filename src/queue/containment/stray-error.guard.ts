import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { RELEASE_WORKER_SQL } from '../sql/lost-attempts.sql';
import { describeThrown } from '../outcome/thrown-value';
import { WORKER_ID } from '../instance/worker-id.token';
import { WorkerMetrics } from '../instance/worker-metrics';
import { attemptContext } from './attempt-context';

/** Longest wait for the release statement before exiting anyway (ms). */
const RELEASE_TIMEOUT_MS = 3_000;
/** Actions released on the way out run again after this delay (ms): the process has exited by then. */
const RELEASE_DELAY_MS = 1_000;

/**
 * Process-level handlers for errors nothing caught (`unhandledRejection`,
 * `uncaughtException`), installed by worker instances unless
 * STRAY_ERROR_POLICY is `off`. Node's default would end the process and
 * every action running beside the culprit would wait for its lease to expire.
 *
 * An error raised by code a handler started (a forgotten promise, a timer) is
 * charged to that action alone (attempt-context.ts carries the attribution):
 * its attempt ends as an error, logged with the action id, type and attempt;
 * after its attempt ended it is only logged. Then, by policy:
 * - `fail-attempt` (default): the instance keeps running.
 * - `exit`: the other running actions are released (not charged) and the
 *   process exits with code 1.
 * An error that no handler can be blamed for always takes the `exit` path
 * (the process state is unknown), with the running actions released.
 */
@Injectable()
export class StrayErrorGuard implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StrayErrorGuard.name);
  private exiting = false;
  private readonly onRejection = (reason: unknown) => void this.handle('unhandled rejection', reason);
  private readonly onException = (error: unknown) => void this.handle('uncaught exception', error);

  constructor(
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly metrics: WorkerMetrics,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.WORKER_ENABLED || this.settings.STRAY_ERROR_POLICY === 'off') return;
    process.on('unhandledRejection', this.onRejection);
    process.on('uncaughtException', this.onException);
  }

  onApplicationShutdown(): void {
    process.off('unhandledRejection', this.onRejection);
    process.off('uncaughtException', this.onException);
  }

  private async handle(kind: string, error: unknown): Promise<void> {
    const { message, stack } = describeThrown(error);
    const attempt = attemptContext.getStore();
    this.metrics.strayError(attempt?.type ?? 'none');
    if (!attempt) {
      this.logger.error(`Stray ${kind} outside any handler: ${message}; releasing this worker's actions and exiting`, stack ?? undefined);
      return this.exit(null, `instance stopped after a stray ${kind} outside any handler: ${message}`);
    }
    const endedNow = attempt.strayError(error);
    const where = `action ${attempt.actionId} (type ${attempt.type}, attempt ${attempt.attempt})`;
    this.logger.error(
      `Stray ${kind} from the handler of ${where}: ${message}${endedNow ? '; the attempt ends as an error' : ' (its attempt had already ended)'}`,
      stack ?? undefined,
    );
    if (this.settings.STRAY_ERROR_POLICY === 'exit') {
      await this.exit(attempt.actionId, `the handler left a stray ${kind}: ${message}`);
    }
  }

  /**
   * Ends this worker's running attempts in one statement and exits with code 1:
   * the culprit's as a charged error, the others released uncharged; with no
   * culprit, each is treated as lost with its instance (uncharged; a suspect
   * after two losses in a row, 011-lost-attempts-in-parallel.up.sql).
   */
  private async exit(culprit: string | null, reason: string): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    try {
      const release = this.pool.query(RELEASE_WORKER_SQL, [this.workerId, culprit, reason, RELEASE_DELAY_MS]);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), RELEASE_TIMEOUT_MS).unref());
      const { rows } = (await Promise.race([release, timeout])) as { rows: unknown[] };
      this.logger.error(`Released ${rows.length} running action(s); exiting`);
    } catch (releaseError) {
      this.logger.error(`Could not release the running actions (their leases will expire): ${(releaseError as Error).message}`);
    } finally {
      process.exit(1);
    }
  }
}
