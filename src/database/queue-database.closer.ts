import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { waitAtMost } from '../wait-at-most';
import { QUEUE_DATABASE, QueueDatabase } from './queue-database';

/** Longest wait for the pool to close on shutdown (ms): an unreachable database must not hang SIGTERM. */
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * Closes the queue's own DataSource when the app shuts down (after every
 * `beforeApplicationShutdown` hook, so the worker has drained); an app's
 * DataSource is left to the app. Gives up after CLOSE_TIMEOUT_MS, so a
 * database that stopped answering cannot keep the process alive.
 */
@Injectable()
export class QueueDatabaseCloser implements OnApplicationShutdown {
  private readonly logger = new Logger(QueueDatabaseCloser.name);

  constructor(@Inject(QUEUE_DATABASE) private readonly database: QueueDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.database.owned || !this.database.dataSource.isInitialized) return;
    const closed = this.database.dataSource.destroy().catch((error: unknown) => this.logger.warn(`database pool failed to close: ${String(error)}`));
    if (!(await waitAtMost(closed, CLOSE_TIMEOUT_MS))) this.logger.warn(`database pool did not close within ${CLOSE_TIMEOUT_MS} ms; leaving it`);
  }
}
