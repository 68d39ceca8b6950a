import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { QUEUE_DATABASE, QueueDatabase } from './queue-database';

/**
 * Closes the queue's own DataSource when the app shuts down (after every
 * `beforeApplicationShutdown` hook, so the worker has drained); an app's
 * DataSource is left to the app.
 */
@Injectable()
export class QueueDatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(QUEUE_DATABASE) private readonly database: QueueDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.database.owned && this.database.dataSource.isInitialized) await this.database.dataSource.destroy();
  }
}
