import { Provider } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { QUEUE_DATA_SOURCE } from './queue-data-source.token';

/** DI token of the node-postgres pool behind TypeORM's DataSource (one pool per instance). */
export const PG_POOL = Symbol('actions:pg-pool');

/**
 * The hot path (claim, finish, heartbeat, reaper) runs its statements
 * (named unless behind a transaction pooler: see timed-query.ts) on TypeORM's own pool: the same connections and settings, without
 * a QueryRunner per statement.
 */
export const pgPoolProvider: Provider = {
  provide: PG_POOL,
  inject: [QUEUE_DATA_SOURCE],
  useFactory: (dataSource: DataSource): Pool => (dataSource.driver as PostgresDriver).master as Pool,
};
