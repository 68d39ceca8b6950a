import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitSqlStatements } from './sql-statements';

/**
 * A function, trigger function or view as a chain of numbered migrations
 * left it: the last statement that created it, the ALTER FUNCTION statements
 * that changed it after that (041's `SET enable_sort = off`, say), and where
 * it was created.
 */
export interface ReleasedDefinition {
  /** Its name (lower case, unqualified). */
  name: string;
  kind: 'function' | 'view';
  /** The CREATE statement, as written (with its `;`). */
  create: string;
  /** The `--` comment lines right above the CREATE statement. */
  comment: string;
  /** ALTER statements after it, in order, each with the comment above it. */
  alters: { sql: string; comment: string }[];
  /** File stem of the migration that created it last, e.g. `046-finish-without-guard`. */
  file: string;
  /** Its place in the chain: the CREATE's migration index, then statement index (dependency order: each was valid when written). */
  order: [number, number];
}

const IDENT = String.raw`((?:"[^"]+"|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w$]*))?)`;
const CREATE_FUNCTION = new RegExp(String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+${IDENT}\s*\(`, 'i');
const CREATE_VIEW = new RegExp(String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+${IDENT}`, 'i');
const ALTER_FUNCTION = new RegExp(String.raw`^ALTER\s+FUNCTION\s+${IDENT}`, 'i');
/** 020-pin-search-path.up.sql: a DO block that pins the search_path of every function then in the schema. */
const PIN_EVERY_SEARCH_PATH = /^DO\b[\s\S]*ALTER ROUTINE %s SET search_path FROM CURRENT/i;
const DROP_DEFINITION = /^DROP\s+(FUNCTION|VIEW)\s+(?:IF\s+EXISTS\s+)?([\s\S]*?)(?:\s+(?:CASCADE|RESTRICT))?\s*;?$/i;

/**
 * The functions and views that the up files of the given migrations leave,
 * read from the files themselves, statement by statement (a dollar-quote
 * aware split: splitSqlStatements): per name, the last CREATE, the ALTER
 * FUNCTION statements after it; a DROP FUNCTION / DROP VIEW forgets it.
 * 020's DO block, which pinned the search_path of every function then
 * defined, counts as an ALTER of each. Other definitions made inside a DO
 * block are not seen (the released migrations make none).
 *
 * @param files the migrations' file stems in chain order, e.g. `['001-tables', …, '046-finish-without-guard']`.
 * @param dir the folder of the `.sql` files (SQL_MIGRATIONS_DIR).
 * @returns the definitions by name.
 */
export function definitionsOfMigrations(files: string[], dir: string): Map<string, ReleasedDefinition> {
  const definitions = new Map<string, ReleasedDefinition>();
  files.forEach((file, fileIndex) => {
    const statements = splitSqlStatements(readFileSync(join(dir, `${file}.up.sql`), 'utf8'));
    statements.forEach((statement, statementIndex) => {
      const { sql, comment } = statement;
      const fn = CREATE_FUNCTION.exec(sql);
      const view = fn ? null : CREATE_VIEW.exec(sql);
      if (fn || view) {
        const name = plainName((fn ?? view)![1]);
        definitions.set(name, { name, kind: fn ? 'function' : 'view', create: sql, comment, alters: [], file, order: [fileIndex, statementIndex] });
        return;
      }
      const alter = ALTER_FUNCTION.exec(sql);
      if (alter) {
        const definition = definitions.get(plainName(alter[1]));
        if (!definition) throw new Error(`${file}.up.sql alters ${alter[1]}, which no earlier migration created`);
        definition.alters.push({ sql, comment });
        return;
      }
      if (PIN_EVERY_SEARCH_PATH.test(sql)) {
        // 020's DO block: every function of the schema at that point pinned its search_path.
        for (const definition of definitions.values()) {
          if (definition.kind === 'function') definition.alters.push({ sql: `ALTER FUNCTION ${definition.name} SET search_path FROM CURRENT;`, comment });
        }
        return;
      }
      const drop = DROP_DEFINITION.exec(sql);
      if (drop) {
        // One or more names, each maybe with its argument types: `f(bigint), g()`.
        for (const target of drop[2].replace(/\([^)]*\)/g, '').split(',')) definitions.delete(plainName(target.trim()));
      }
    });
  });
  return definitions;
}

/**
 * The statements that restore `definitions` exactly as their migrations left
 * them: each CREATE made `CREATE OR REPLACE` (the object exists, with its
 * grants and comments, which a replace keeps), then its ALTERs, in the order
 * the chain created them.
 */
export function restoringStatements(definitions: Iterable<ReleasedDefinition>): string[] {
  const ordered = [...definitions].sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
  return ordered.flatMap((d) => [d.create.replace(/^CREATE\s+(?:OR\s+REPLACE\s+)?/i, 'CREATE OR REPLACE '), ...d.alters.map((a) => a.sql)]);
}

/** An identifier as the catalog names it: unqualified, unquoted, folded to lower case unless quoted. */
function plainName(identifier: string): string {
  const last = identifier.split('.').pop()!;
  return last.startsWith('"') ? last.slice(1, -1) : last.toLowerCase();
}
