import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { shutdownStep } from '../shutdown-steps';
import { QUEUE_DATABASE, QueueDatabase } from './queue-database';

/**
 * Longest wait for the pool to close on shutdown (ms): an unreachable
 * database must not hang SIGTERM. (Closing waits for the connections still
 * checked out, whose statements may never be answered.)
 */
export const POOL_CLOSE_TIMEOUT_MS = 2_000;

/**
 * Closes the queue's own DataSource when the app shuts down (after every
 * `beforeApplicationShutdown` hook, so the worker has drained); an app's
 * DataSource is left to the app. Gives up after POOL_CLOSE_TIMEOUT_MS, so a
 * database that stopped answering cannot keep the process alive.
 */
@Injectable()
export class QueueDatabaseCloser implements OnApplicationShutdown {
  private readonly logger = new Logger(QueueDatabaseCloser.name);

  constructor(@Inject(QUEUE_DATABASE) private readonly database: QueueDatabase) {}

  /** Closes the owned DataSource, waiting at most POOL_CLOSE_TIMEOUT_MS. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.database.owned || !this.database.dataSource.isInitialized) return;
    const closed = this.database.dataSource.destroy().catch((error: unknown) => this.logger.warn(`database pool failed to close: ${String(error)}`));
    await shutdownStep('database pool closing', closed, POOL_CLOSE_TIMEOUT_MS, this.logger);
  }
}
