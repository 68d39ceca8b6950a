import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_MIGRATIONS_DIR } from '../migrations/sql-file-migration';
import { splitSqlStatements } from '../sql-statements';

/** The first migration of the definitions layer (048): migrations before it are never edited, 047's function included. */
const FIRST_WITHOUT_DEFINITIONS = 48;

/**
 * From 048 on, numbered migrations change tables, indexes and data only:
 * a function, trigger function or view is defined in its one file of
 * src/database/functions (apply-definitions.ts), never restated in a
 * migration. Dropping one (before a changed signature) is still a migration's.
 */
describe('numbered migrations from 048 on define no function or view', () => {
  const files = readdirSync(SQL_MIGRATIONS_DIR).filter((f) => {
    const number = /^(\d{3})-.+\.(up|down)\.sql$/.exec(f)?.[1];
    return number !== undefined && Number(number) >= FIRST_WITHOUT_DEFINITIONS;
  });

  it('finds the files to check', () => {
    expect(files).toEqual(expect.arrayContaining(['048-schema-definitions.up.sql', '048-schema-definitions.down.sql']));
  });

  it.each(files)('%s holds no CREATE FUNCTION / VIEW / PROCEDURE nor ALTER FUNCTION', (file) => {
    // Statements without their comments; a DO block's EXECUTE of such text is caught too.
    const statements = splitSqlStatements(readFileSync(join(SQL_MIGRATIONS_DIR, file), 'utf8')).map((s) => s.sql);
    const found = statements.filter((sql) =>
      /\b(CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|VIEW|PROCEDURE|TRIGGER\s+FUNCTION)|ALTER\s+(FUNCTION|VIEW|PROCEDURE|ROUTINE))\b/i.test(sql),
    );
    expect(found).toEqual([]);
  });
});
