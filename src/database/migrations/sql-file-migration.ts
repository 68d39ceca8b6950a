import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { LIFT_DBA_SESSION_LIMITS } from '../dba-session-limits';
import { DEFAULT_QUEUE_SCHEMA } from '../queue-schema';
import { splitSqlStatements } from '../sql-statements';

/** Folder of the numbered `.sql` migration files (copied next to the compiled code by `npm run build`). */
export const SQL_MIGRATIONS_DIR = join(__dirname, '..', 'sql');

/**
 * A migration whose SQL lives in the pair `<file>.up.sql` / `<file>.down.sql`
 * of {@link SQL_MIGRATIONS_DIR}, where each statement has its reasoning beside
 * it. Files are frozen once released: a change is a new numbered pair. It
 * runs with its transaction's search_path set to exactly the queue's schema
 * (the DataSource's `schema` option, default `public`), so a function it
 * creates with `SET search_path FROM CURRENT` is pinned to that schema.
 * The file's statements are sent one at a time (splitSqlStatements), in the
 * one transaction: a Citus coordinator forwards the text of some DDL to the
 * other nodes as a prepared statement, and a whole file there failed with
 * "cannot insert multiple commands into a prepared statement".
 *
 * @param timestamp TypeORM's ordering key (ms since epoch, 13 digits).
 * @param name what the migration does, e.g. `CreateTables`.
 * @param file the file stem, e.g. `001-tables`.
 * @param options `beforeDown`: a step run in the down transaction before the
 *   down file (search_path and limits already set), for what a file cannot
 *   say: 048's restore of the released definitions.
 * @returns a migration class for the DataSource's `migrations` list.
 */
export function sqlFileMigration(
  timestamp: number,
  name: string,
  file: string,
  options: { beforeDown?: (queryRunner: QueryRunner) => Promise<void> } = {},
): new () => MigrationInterface {
  const migrationName = `${name}${timestamp}`;
  const run = async (queryRunner: QueryRunner, direction: 'up' | 'down'): Promise<void> => {
    // Exactly the queue's schema, for this migration's transaction: its
    // unqualified names land there whatever the database's or role's
    // search_path, and `SET search_path FROM CURRENT` in a function pins it.
    const schema = (queryRunner.connection.options as { schema?: string }).schema ?? DEFAULT_QUEUE_SCHEMA;
    await queryRunner.query(`SELECT set_config('search_path', quote_ident($1), true)`, [schema]);
    // A DBA's statement_timeout or lock_timeout would cancel it at every start-up (dba-session-limits.ts).
    await queryRunner.query(LIFT_DBA_SESSION_LIMITS);
    if (direction === 'down') await options.beforeDown?.(queryRunner);
    for (const statement of splitSqlStatements(readFileSync(join(SQL_MIGRATIONS_DIR, `${file}.${direction}.sql`), 'utf8'))) {
      await queryRunner.query(statement.sql);
    }
  };
  const migration = class implements MigrationInterface {
    name = migrationName;
    up = (queryRunner: QueryRunner) => run(queryRunner, 'up');
    down = (queryRunner: QueryRunner) => run(queryRunner, 'down');
  };
  Object.defineProperty(migration, 'name', { value: migrationName });
  return migration;
}
