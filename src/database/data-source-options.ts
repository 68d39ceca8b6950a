import { DataSourceOptions } from 'typeorm';
import { Action } from '../actions/action.entity';
import { ActionAttempt } from '../actions/action-attempt.entity';
import { ActionGroup } from '../actions/action-group.entity';
import { CreateActionQueue1764460800000 } from './migrations/1764460800000-CreateActionQueue';
import { AddClaimAndFinishFunctions1764460900000 } from './migrations/1764460900000-AddClaimAndFinishFunctions';
import { RetryGroupLockAfterPurge1764461000000 } from './migrations/1764461000000-RetryGroupLockAfterPurge';

/** Every entity of the service. */
export const ENTITIES = [Action, ActionAttempt, ActionGroup];

/** Every migration, in order. Add new ones at the end. */
export const MIGRATIONS = [CreateActionQueue1764460800000, AddClaimAndFinishFunctions1764460900000, RetryGroupLockAfterPurge1764461000000];

/**
 * TypeORM options shared by the app and the migration CLI (`ormconfig.ts`).
 * `synchronize` is off for good: the schema changes only through migrations.
 *
 * @param url PostgreSQL connection URL.
 * @param poolSize connections in the pool.
 */
export function buildDataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    poolSize,
    extra: {
      // Fail fast rather than queue forever when the database is away.
      connectionTimeoutMillis: 5_000,
      application_name: 'ordered-action-queue',
    },
  };
}
