import { Global, Module } from '@nestjs/common';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { DATABASE_URL } from './database-url.token';
import { MigrationsService } from './migrations.service';
import { PG_POOL, pgPoolProvider } from './pg-pool.provider';
import { openQueueDatabase, QUEUE_DATABASE, QueueDatabase } from './queue-database';
import { QUEUE_DATABASE_CONFIG, QueueDatabaseConfig } from './queue-database-config';
import { QueueDatabaseCloser } from './queue-database.closer';
import { QUEUE_DATA_SOURCE } from './queue-data-source.token';
import { QUEUE_PLACEMENT } from './queue-placement.token';

/**
 * The queue's database, from QUEUE_DATABASE_CONFIG: the DataSource
 * (QUEUE_DATA_SOURCE), its raw pg pool (PG_POOL), the URL for dedicated
 * connections (DATABASE_URL), the queue's schema chosen at start-up
 * (QUEUE_PLACEMENT), and migrations on start-up.
 */
@Global()
@Module({
  providers: [
    {
      provide: QUEUE_DATABASE,
      inject: [QUEUE_DATABASE_CONFIG, SETTINGS],
      useFactory: (config: QueueDatabaseConfig, settings: QueueSettings) =>
        openQueueDatabase(config.database, settings.DB_POOL_SIZE, { schema: settings.DATABASE_SCHEMA, pooler: settings.DATABASE_POOLER }),
    },
    { provide: QUEUE_DATA_SOURCE, inject: [QUEUE_DATABASE], useFactory: (database: QueueDatabase) => database.dataSource },
    { provide: DATABASE_URL, inject: [QUEUE_DATABASE], useFactory: (database: QueueDatabase) => database.url },
    { provide: QUEUE_PLACEMENT, inject: [QUEUE_DATABASE], useFactory: (database: QueueDatabase) => database.placement },
    pgPoolProvider,
    MigrationsService,
    QueueDatabaseCloser,
  ],
  exports: [QUEUE_DATA_SOURCE, DATABASE_URL, QUEUE_PLACEMENT, PG_POOL, MigrationsService],
})
export class DatabaseModule {}
