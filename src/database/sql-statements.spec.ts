import { splitSqlStatements } from './sql-statements';

describe('splitSqlStatements', () => {
  it('cuts at top-level semicolons only, keeping a function body whole', () => {
    const script = [
      '-- The first.',
      "CREATE TABLE t (a text DEFAULT ';');",
      '',
      '-- Why the function:',
      '-- two lines.',
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$',
      'BEGIN',
      '  PERFORM 1; -- a comment; with a semicolon',
      '  RETURN $1;',
      'END $fn$;',
      "DO $$ BEGIN RAISE NOTICE 'x;y'; END $$;",
      "SELECT E'it\\'s; here', \"odd;name\", /* a; /* nested; */ comment */ 2;",
      'SELECT 3',
    ].join('\n');
    const statements = splitSqlStatements(script);
    expect(statements.map((s) => s.sql.split('\n')[0])).toEqual([
      "CREATE TABLE t (a text DEFAULT ';');",
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$',
      "DO $$ BEGIN RAISE NOTICE 'x;y'; END $$;",
      "SELECT E'it\\'s; here', \"odd;name\", /* a; /* nested; */ comment */ 2;",
      'SELECT 3',
    ]);
    expect(statements[0].comment).toBe('-- The first.');
    expect(statements[1].comment).toBe('-- Why the function:\n-- two lines.');
    expect(statements[1].sql.endsWith('END $fn$;')).toBe(true);
  });

  it('drops what holds only comments and whitespace', () => {
    expect(splitSqlStatements('SELECT 1;\n-- the end\n')).toEqual([{ comment: '', sql: 'SELECT 1;' }]);
  });
});
