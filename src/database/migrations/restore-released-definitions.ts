import { readdirSync } from 'node:fs';
import type { QueryRunner } from 'typeorm';
import { DEFINITION_MANIFEST } from '../functions/definition-manifest';
import { definitionsOfMigrations, restoringStatements } from '../released-definitions';
import { SQL_MIGRATIONS_DIR } from './sql-file-migration';

/** Number of the last migration before the definitions layer (001..046 are release 0.3.0's; 047 came after, and is never edited either). */
const LAST_MIGRATION_BEFORE_DEFINITIONS = 47;

/**
 * The down step of migration 048: puts back the functions, trigger functions
 * and views the migrations before it left (release 0.3's, and 047's rule of
 * losses), read AT RUN TIME from the migration files 001..047 (001..046
 * pinned by sha256: released-migrations.spec.ts), never from a
 * frozen copy: for each name, the last CREATE of it in the chain made
 * `CREATE OR REPLACE`, plus the ALTER FUNCTION statements after it
 * (released-definitions.ts). Definitions of this release that those
 * migrations did not have are dropped. Runs in the migration's transaction, whose search_path
 * is the queue's schema.
 *
 * @param runner the migration's query runner.
 * @throws the SQL error of a statement (the migration's transaction is rolled back).
 */
export async function restoreReleasedDefinitions(runner: QueryRunner): Promise<void> {
  const files = readdirSync(SQL_MIGRATIONS_DIR)
    .map((file) => /^((\d{3})-.+)\.up\.sql$/.exec(file))
    .filter((match): match is RegExpExecArray => match !== null && Number(match[2]) <= LAST_MIGRATION_BEFORE_DEFINITIONS)
    .map((match) => match[1])
    .sort();
  const released = definitionsOfMigrations(files, SQL_MIGRATIONS_DIR);
  for (const statement of restoringStatements(released.values())) await runner.query(statement);
  for (const name of [...DEFINITION_MANIFEST].reverse()) {
    if (released.has(name)) continue;
    const [{ view }]: { view: boolean }[] = await runner.query(
      `SELECT EXISTS (SELECT FROM pg_class WHERE oid = to_regclass(quote_ident($1)) AND relkind = 'v') AS view`,
      [name],
    );
    await runner.query(`DROP ${view ? 'VIEW' : 'FUNCTION'} IF EXISTS ${quoteIdentifier(name)}`);
  }
}

/** `name` as a quoted SQL identifier. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
