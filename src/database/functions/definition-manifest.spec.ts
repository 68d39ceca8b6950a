import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitSqlStatements } from '../sql-statements';
import { DEFINITION_MANIFEST } from './definition-manifest';

const DIR = __dirname;
const files = readdirSync(DIR).filter((f) => f.endsWith('.sql'));

/** The definition file's one statement, without the comments above it. */
function statementOf(name: string): string {
  const statements = splitSqlStatements(readFileSync(join(DIR, `${name}.sql`), 'utf8'));
  expect(statements).toHaveLength(1);
  return statements[0].sql;
}

describe('src/database/functions: one current definition per file', () => {
  it('lists every file in the manifest, and every manifest name has its file, once', () => {
    expect([...DEFINITION_MANIFEST].sort()).toEqual(files.map((f) => f.replace(/\.sql$/, '')).sort());
    expect(new Set(DEFINITION_MANIFEST).size).toBe(DEFINITION_MANIFEST.length);
  });

  it.each(DEFINITION_MANIFEST)('%s.sql defines exactly %s, unqualified, and pins search_path as the migrations did', (name) => {
    const sql = statementOf(name);
    const head = /^CREATE OR REPLACE (FUNCTION|VIEW) ([a-z_][a-z0-9_]*)\b/.exec(sql);
    expect(head?.[2]).toBe(name);
    // Unqualified names land in the queue's schema, whatever it is (DATABASE_SCHEMA; public before 0.4).
    expect(sql).not.toMatch(/\baction_queue\./);
    if (head?.[1] === 'FUNCTION') {
      expect(sql).toMatch(/^ SET search_path FROM CURRENT$/m);
      expect(sql).not.toMatch(/SET search_path TO/);
    }
    // Its reasons beside it.
    expect(readFileSync(join(DIR, `${name}.sql`), 'utf8')).toMatch(/^-- /);
  });

  it('orders them by dependency: a SQL function or view names only definitions before it (checked at creation)', () => {
    const late: string[] = [];
    DEFINITION_MANIFEST.forEach((name, i) => {
      const sql = statementOf(name);
      if (!/^CREATE OR REPLACE VIEW|LANGUAGE sql/m.test(sql)) return; // PL/pgSQL bodies are checked at run time only
      for (const used of new Set(sql.match(/\b(?:aq_[a-z0-9_]+|action_groups)\b/g) ?? [])) {
        if (used !== name && DEFINITION_MANIFEST.indexOf(used) > i) late.push(`${name} uses ${used}`);
      }
    });
    expect(late).toEqual([]);
  });
});
