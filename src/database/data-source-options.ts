import { DataSourceOptions } from 'typeorm';
import { Action } from '../data-model/action.entity';
import { ActionActivity, ActionActivityRollup } from '../data-model/action-activity.entity';
import { ActionAttempt } from '../data-model/action-attempt.entity';
import { ActionGroupHead } from '../data-model/action-group-head.entity';
import { ActionGroupLock } from '../data-model/action-group-lock.entity';
import { ActionGroupKey } from '../data-model/action-group-key.entity';
import { QUEUE_APPLICATION_NAME } from '../release/release-version';
import { MIGRATIONS } from './migrations';
import { DEFAULT_PLACEMENT, pinsSearchPath, QueuePlacement, queuePoolClient } from './queue-schema';

/** Every entity of the service. */
export const ENTITIES = [Action, ActionAttempt, ActionGroupLock, ActionGroupHead, ActionGroupKey, ActionActivity, ActionActivityRollup];

export { MIGRATIONS };

/** Table recording the queue's applied migrations (apart from an app's own `migrations` table). */
export const MIGRATIONS_TABLE = 'typeorm_migrations';

/**
 * TypeORM options shared by the app and the migration CLI (`ormconfig.ts`).
 * `synchronize` is off for good: the schema changes only through migrations.
 *
 * @param url PostgreSQL connection URL.
 * @param poolSize connections in the pool.
 * @param placement the queue's schema (entities and the migrations table are
 *   qualified with it; connections pin their search_path to it unless behind
 *   a transaction pooler) and the pooler in front. Default `public`, direct.
 */
export function buildDataSourceOptions(url: string, poolSize = 10, placement: QueuePlacement = DEFAULT_PLACEMENT): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    schema: placement.schema,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    extra: {
      // Fail fast rather than queue forever when the database is away.
      connectionTimeoutMillis: 5_000,
      application_name: QUEUE_APPLICATION_NAME,
      // Each connection pinned to the queue's schema as it connects, and never
      // an unhandled 'error' event when its backend dies (queue-schema.ts).
      Client: queuePoolClient(pinsSearchPath(placement) ? placement.schema : null),
    },
  };
}
