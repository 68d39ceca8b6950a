import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadSettings } from './src/config/settings';
import { buildDataSourceOptions } from './src/database/data-source-options';

/**
 * The DataSource the TypeORM CLI uses (`npm run migration:run|revert|generate`).
 * It reads the same validated settings as the app; DATABASE_URL is required
 * here (start the service once to use the embedded database, then point
 * DATABASE_URL at the address it logs).
 */
const settings = loadSettings(process.env);
if (!settings.DATABASE_URL) {
  throw new Error('DATABASE_URL is required for the migration CLI, e.g. postgres://postgres@127.0.0.1:54329/postgres');
}
export default new DataSource(buildDataSourceOptions(settings.DATABASE_URL, 2, { schema: settings.DATABASE_SCHEMA, pooler: settings.DATABASE_POOLER }));
