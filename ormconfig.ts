import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadSettings } from './src/config/settings';
import { buildDataSourceOptions } from './src/database/data-source-options';
import { chooseQueueSchemaAt } from './src/database/queue-schema-choice';

/**
 * The DataSource the TypeORM CLI uses (`npm run migration:run|revert|generate`).
 * It reads the same validated settings as the app, and the queue's schema is
 * decided as the service decides it at start-up (DATABASE_SCHEMA, else
 * `public` for an install of 0.3 or earlier, else `action_queue`); the CLI
 * awaits an exported promise. DATABASE_URL is required here (start the
 * service once to use the embedded database, then point DATABASE_URL at the
 * address it logs).
 */
async function cliDataSource(): Promise<DataSource> {
  const settings = loadSettings(process.env);
  if (!settings.DATABASE_URL) {
    throw new Error('DATABASE_URL is required for the migration CLI, e.g. postgres://postgres@127.0.0.1:54329/postgres');
  }
  // The schema is created when missing, as the service's start-up does: TypeORM's migrations table goes in it.
  const { schema } = await chooseQueueSchemaAt(settings.DATABASE_URL, settings.DATABASE_SCHEMA, { createMissing: true });
  return new DataSource(buildDataSourceOptions(settings.DATABASE_URL, 2, { schema, pooler: settings.DATABASE_POOLER }));
}

export default cliDataSource();
