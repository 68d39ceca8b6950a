import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { DEFINITION_MANIFEST } from './database/functions/definition-manifest';

/**
 * References that cannot rot: every repository path named in the docs
 * (README.md, CHANGELOG.md, docs/, test/README.md, bench/README.md) or in a
 * comment of the sources (src/, test/, bench/, scripts/, ui/: .ts, .mts, .tsx,
 * .sql) must exist, relative markdown links must resolve (a link to a
 * section, to a heading the file has), `npx jest <path>`
 * and `.ci/run <path>` commands must name a test file (or a prefix of one),
 * and no text may point at design documents kept outside the repository or
 * at numbered issues.
 *
 * A failure lists every offender as `file:line: reference`.
 */

const root = join(__dirname, '..');

/** Top-level folders whose names start a repository path in prose. */
const PATH_PATTERN = /(?<![\w./@-])(?:src|test|docs|bench|scripts|examples|etc|ui)\/[\w./-]+\.\w+/g;

/** `[text](target)` and `![alt](target)`; the target up to whitespace or `)`. */
const MARKDOWN_LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/**
 * References a reader of the repository cannot follow: design documents kept
 * outside it (a shared folder next to the checkout) and numbered issues of a
 * tracker that is not part of it. Say what the issue was instead.
 */
const OUTSIDE_DOCUMENTS = /\.\.\/shared\/|\b(?:DESIGN|CONTRACT|STYLE)\.md\b|\bissues? #?\d+/gi;

/**
 * Paths that are deliberately not in the repository. Keep this short; every
 * entry says why.
 */
const ALLOWED_MISSING: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /^dist\//, why: 'built by `npm run build`' },
  { pattern: /^ui\/dist\//, why: 'the dashboard bundle, built by `npm run build:ui`' },
];

/**
 * Files whose text may not change: the released migrations (their text is the
 * schema users have; a new comment needs a new migration), the snapshot
 * generated from them, and the fixtures copied from release 0.1. Their comments
 * are history, not pointers to keep up to date.
 */
const IMMUTABLE = [/^src\/database\/sql\/\d{3}-/, /^test\/database\/schema\.snapshot\.sql$/, /^test\/fixtures\/schema-0\.1\//];

const DOCS = ['README.md', 'CHANGELOG.md', 'test/README.md', 'bench/README.md'];
const SOURCE_ROOTS = ['src', 'test', 'bench', 'scripts', 'ui'];
const SOURCE_EXTENSION = /\.(?:ts|mts|tsx|sql)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);

/** Every file under `dir` (repository-relative, `/`-separated), skipping build output. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  if (existsSync(join(root, dir))) walk(dir);
  return out;
}

/** A piece of text to scan and the line in its file where it starts. */
interface Fragment {
  text: string;
  line: number;
}

/**
 * The comments of a TypeScript or SQL source, with their starting lines. A
 * small scanner: it skips string literals (so a URL in a string is no
 * comment) and, for TypeScript, regular-expression literals after an operator.
 */
export function commentsOf(source: string, sql: boolean): Fragment[] {
  const out: Fragment[] = [];
  let line = 1;
  let i = 0;
  let lastSignificant = '';
  /** Advances to `end`, counting newlines; returns the line where the skipped text started. */
  const take = (end: number): number => {
    const startLine = line;
    line += source.slice(i, end).split('\n').length - 1;
    i = end;
    return startLine;
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if ((!sql && c === '/' && next === '/') || (sql && c === '-' && next === '-')) {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      out.push({ text: source.slice(i, stop), line: take(stop) });
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out.push({ text: source.slice(i, stop), line: take(stop) });
    } else if (c === "'" || c === '"' || (!sql && c === '`')) {
      let j = i + 1;
      while (j < source.length && source[j] !== c) {
        if (source[j] === '\\' && !sql) j++;
        if (source[j] === '\n' && c !== '`' && !sql) break;
        j++;
      }
      take(Math.min(j + 1, source.length));
      lastSignificant = c;
    } else if (!sql && c === '/' && (lastSignificant === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastSignificant))) {
      // A regular-expression literal: skip to its closing slash (outside a class).
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n') {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        else if (source[j] === '/' && !inClass) break;
        j++;
      }
      take(j + 1);
      lastSignificant = '/';
    } else {
      if (!/\s/.test(c)) lastSignificant = c;
      take(i + 1);
    }
  }
  return out;
}

/** The text of a markdown file as one fragment per line, fenced code included (commands live there). */
function linesOf(text: string): Fragment[] {
  return text.split('\n').map((t, n) => ({ text: t, line: n + 1 }));
}

let everyFile: string[] | undefined;

/** Every file of the repository's scanned folders, listed once. */
function allFiles(): string[] {
  everyFile ??= ['src', 'test', 'docs', 'bench', 'scripts', 'examples', 'etc', 'ui'].flatMap(filesUnder);
  return everyFile;
}

function exists(path: string): boolean {
  return existsSync(join(root, path));
}

function allowedMissing(path: string): boolean {
  return ALLOWED_MISSING.some(({ pattern }) => pattern.test(path));
}

/**
 * Offences in one fragment of `file`, as `file:line: reference (what is wrong)`;
 * `testFiles` are the test files a jest command's path may be a prefix of.
 */
export function offencesIn(file: string, fragment: Fragment, markdown: boolean, testFiles: string[]): string[] {
  const out: string[] = [];
  const lines = fragment.text.split('\n');
  lines.forEach((text, n) => {
    const where = `${file}:${fragment.line + n}`;
    for (const match of text.matchAll(PATH_PATTERN)) {
      const path = match[0].replace(/\.+$/, '');
      // `src/database/sql/upgrade-0.1-*.sql`: a glob names a prefix.
      const globTail = /^[\w./-]*(?=\*)/.exec(text.slice((match.index ?? 0) + match[0].length));
      const prefix = globTail ? path + globTail[0] : path;
      const found = globTail ? allFiles().some((f) => f.startsWith(prefix)) : exists(path);
      if (!found && !allowedMissing(path)) out.push(`${where}: ${globTail ? `${prefix}*` : path} (no such file)`);
    }
    for (const match of text.matchAll(OUTSIDE_DOCUMENTS)) {
      out.push(`${where}: ${match[0]} (a document outside the repository)`);
    }
    if (markdown) {
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const target = match[1].replace(/#.*$/, '');
        if (target === '' || /^[a-z][a-z+.-]*:/i.test(target)) continue;
        const path = relative(root, normalize(join(root, dirname(file), target)))
          .split('\\')
          .join('/');
        if (path.startsWith('..')) out.push(`${where}: ${match[1]} (links outside the repository)`);
        else if (!exists(path) && !allowedMissing(path)) out.push(`${where}: ${match[1]} (no such file)`);
      }
    }
    for (const match of text.matchAll(/(?:npx jest|\.ci\/run)((?:\s+[^\s`)]+)+)/g)) {
      for (const arg of match[1].trim().split(/\s+/)) {
        if (arg.startsWith('-') || /^[<[]/.test(arg)) continue;
        if (!testFiles.some((f) => f.startsWith(arg)))
          out.push(`${where}: ${match[0].startsWith('npx') ? 'npx jest' : '.ci/run'} ${arg} (matches no test file)`);
      }
    }
  });
  return out;
}

/**
 * GitHub's anchor for a markdown heading: lower case, punctuation dropped
 * (backticks, quotes, dots, parentheses), spaces to hyphens.
 */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text's headings (fenced code skipped). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(headingAnchor(heading[1]));
  }
  return anchors;
}

/**
 * Links of `file` (a markdown file) to a section, `[text](other.md#anchor)` or
 * `[text](#anchor)`, whose heading does not exist (a section renamed or
 * moved), as `file:line: link (no such section)`.
 */
function brokenSectionLinks(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, n) => {
    for (const match of line.matchAll(MARKDOWN_LINK)) {
      const [target, anchor] = match[1].split('#');
      if (anchor === undefined || /^[a-z][a-z+.-]*:/i.test(target) || (target !== '' && !target.endsWith('.md'))) continue;
      const path =
        target === ''
          ? file
          : relative(root, normalize(join(root, dirname(file), target)))
              .split('\\')
              .join('/');
      if (!exists(path)) continue; // reported as a missing file
      if (!anchorsOf(readFileSync(join(root, path), 'utf8')).has(anchor)) out.push(`${file}:${n + 1}: ${match[1]} (no such section)`);
    }
  });
  return out;
}

describe('repository references', () => {
  const testFiles = [...filesUnder('src'), ...filesUnder('test')].filter((f) => /\.(?:spec|db-spec|process-spec)\.ts$/.test(f));

  it('finds the files it scans (the scan itself is not empty)', () => {
    expect(testFiles.length).toBeGreaterThan(10);
    expect(filesUnder('docs').some((f) => f.endsWith('.md'))).toBe(true);
  });

  it('every path, link and jest command named in the docs exists', () => {
    const docs = [...DOCS, ...filesUnder('docs').filter((f) => f.endsWith('.md'))].filter(exists);
    const offences = docs.flatMap((file) => linesOf(readFileSync(join(root, file), 'utf8')).flatMap((f) => offencesIn(file, f, true, testFiles)));
    expect(offences).toEqual([]);
  });

  it('every link to a section of a markdown file names a heading it has', () => {
    const docs = [...DOCS, ...filesUnder('docs').filter((f) => f.endsWith('.md'))].filter(exists);
    expect(docs.flatMap((file) => brokenSectionLinks(file, readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });

  it('every path named in a source comment exists', () => {
    const sources = SOURCE_ROOTS.flatMap(filesUnder).filter(
      (f) => SOURCE_EXTENSION.test(f) && !IMMUTABLE.some((p) => p.test(f)) && f !== 'src/repository-references.spec.ts',
    );
    const offences = sources.flatMap((file) =>
      commentsOf(readFileSync(join(root, file), 'utf8'), file.endsWith('.sql')).flatMap((f) => offencesIn(file, f, false, testFiles)),
    );
    expect(offences).toEqual([]);
  });
});

describe('commentsOf', () => {
  it('finds line and block comments and skips strings and regular expressions', () => {
    const source = ["const url = 'http://x/y'; // see src/a.ts", 'const re = /a\\/\\/b/; /* docs/b.md */', '`// not a comment`;'].join('\n');
    expect(commentsOf(source, false)).toEqual([
      { text: '// see src/a.ts', line: 1 },
      { text: '/* docs/b.md */', line: 2 },
    ]);
  });

  it('reads SQL comments', () => {
    expect(commentsOf("SELECT '--x'; -- src/c.sql\n", true)).toEqual([{ text: '-- src/c.sql', line: 1 }]);
  });
});

describe('offencesIn', () => {
  const testFiles = ['test/database/ordering.db-spec.ts'];
  const check = (text: string, markdown = true) => offencesIn('docs/x.md', { text, line: 3 }, markdown, testFiles);

  it('reports a missing path, a broken relative link, an outside document and a stale jest command', () => {
    expect(check('see src/gone.ts, [ops](missing.md), DESIGN.md trap 1, issue 17\n`npx jest test/ordering.spec.ts`')).toEqual([
      'docs/x.md:3: src/gone.ts (no such file)',
      'docs/x.md:3: DESIGN.md (a document outside the repository)',
      'docs/x.md:3: issue 17 (a document outside the repository)',
      'docs/x.md:3: missing.md (no such file)',
      'docs/x.md:4: test/ordering.spec.ts (no such file)',
      'docs/x.md:4: npx jest test/ordering.spec.ts (matches no test file)',
    ]);
  });

  it('accepts existing paths, globs, links relative to the file, build output and jest prefixes', () => {
    expect(check('src/sleep.ts, src/database/sql/upgrade-0.1-*.sql, [ops](operations.md#x), dist/src/main.js, npx jest test/database/ordering')).toEqual([]);
  });
});

describe('headingAnchor and anchorsOf', () => {
  it('makes the anchors GitHub makes', () => {
    expect(headingAnchor("The queue's schema")).toBe('the-queues-schema');
    expect(headingAnchor('Running without API_KEY')).toBe('running-without-api_key');
    expect(headingAnchor('DBA limits (`statement_timeout`)')).toBe('dba-limits-statement_timeout');
    expect(headingAnchor('2. Inside your Nest app: `ActionQueueModule`')).toBe('2-inside-your-nest-app-actionqueuemodule');
  });

  it('reads headings, not comments inside fenced code', () => {
    expect([...anchorsOf('# Title\n```bash\n# a comment\n```\n## Sub part\n')]).toEqual(['title', 'sub-part']);
  });
});

/**
 * Pointers into the migrations that cannot rot: where a comment of the sources
 * or a line of the docs names one of the queue's SQL functions or views and,
 * on the same line or the line before (when that line names no migration
 * itself), the migration it lives in, at least one
 * migration named there must hold its current definition (the last migration
 * that creates it, or one that alters it since). A migration that restated the
 * function later leaves the pointer aimed at a body that no longer runs; the
 * reader then studies dead code. A pointer may name the history too ("first
 * 006, now 031") as long as the current one is among them.
 *
 * The released migrations and the schema snapshot are exempt (their comments
 * are history, and their text may not change).
 */

const MIGRATIONS = join(root, 'src', 'database', 'sql');

/** `src/database/sql/023-claim-frontier.up.sql`, `sql/007-worker-finish.up.sql`, `023-claim-frontier.up.sql`, `migration 039`, `migrations 043 and 044`. */
const MIGRATION_REFERENCE =
  /(?:sql\/(\d{3})-[\w.-]+|\b(\d{3})-[a-z][\w-]*\.(?:up|down)\.sql|\bmigrations?\s+(\d{3}(?:(?:,\s*|\s+and\s+|\s*\/\s*)\d{3})*)(?![-–]\d))/g;

/** Migration numbers a text names (ranges such as 001-010 name history, not a home). */
export function migrationsNamed(text: string): number[] {
  const out: number[] = [];
  for (const match of text.matchAll(MIGRATION_REFERENCE)) {
    if (match[1] || match[2]) out.push(Number(match[1] ?? match[2]));
    else for (const n of match[3].match(/\d{3}/g) ?? []) out.push(Number(n));
  }
  return out;
}

/**
 * For each function or view the migrations define, the migrations that hold
 * its current definition: the last one that creates it and every later one
 * that alters it (`ALTER FUNCTION ... SET`); a function or view dropped
 * since has none (a pointer to it names history).
 */
export function currentHomes(migrations: ReadonlyArray<{ number: number; text: string }>): Map<string, Set<number>> {
  const homes = new Map<string, Set<number>>();
  for (const { number, text } of [...migrations].sort((a, b) => a.number - b.number)) {
    for (const match of text.matchAll(/\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|VIEW)\s+(?:public\.)?(\w+)/gi)) {
      homes.set(match[1], new Set([number]));
    }
    for (const match of text.matchAll(/\bALTER\s+FUNCTION\s+(?:public\.)?(\w+)/gi)) {
      homes.get(match[1])?.add(number);
    }
    // A dropped function has no home: a pointer to it is history.
    for (const match of text.matchAll(/\bDROP\s+(?:FUNCTION|VIEW)\s+(?:IF\s+EXISTS\s+)?(?:public\.)?(\w+)/gi)) {
      homes.delete(match[1]);
    }
  }
  return homes;
}

/**
 * Stale pointers in `lines` (one text, its first line number `firstLine`):
 * `file:line: name -> migration N (current: M)` for each function named on a
 * line, or the line before, that names migrations none of which holds it now.
 * A function or view of `definitions` lives in its file
 * src/database/functions/<name>.sql (apply-definitions.ts), never in a
 * migration: a line that names a migration beside it must name that file too
 * (history such as "first 023" may stand beside the file).
 */
export function stalePointers(
  file: string,
  lines: string[],
  firstLine: number,
  homes: Map<string, Set<number>>,
  definitions: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  lines.forEach((line, n) => {
    const named = migrationsNamed(line);
    if (named.length === 0) return;
    // The line before counts when it names no migration of its own (a name wrapped before its pointer).
    const before = n > 0 && migrationsNamed(lines[n - 1]).length === 0 ? lines[n - 1] : '';
    const window = `${before}\n${line}`;
    for (const [name] of window.matchAll(/\baq_\w+/g)) {
      if (definitions.has(name)) {
        if (!window.includes(`functions/${name}.sql`)) {
          out.push(
            `${file}:${firstLine + n}: ${name} -> migration ${named.map((m) => String(m).padStart(3, '0')).join(', ')} (current: src/database/functions/${name}.sql)`,
          );
        }
        continue;
      }
      const current = homes.get(name);
      if (!current || named.some((m) => current.has(m))) continue;
      const now = [...current].map((m) => String(m).padStart(3, '0')).join(', ');
      out.push(`${file}:${firstLine + n}: ${name} -> migration ${named.map((m) => String(m).padStart(3, '0')).join(', ')} (current: ${now})`);
    }
  });
  return [...new Set(out)];
}

describe('pointers into the migrations', () => {
  const migrations = readdirSync(MIGRATIONS)
    .filter((f) => /^\d{3}-.*\.up\.sql$/.test(f))
    .map((f) => ({ number: Number(f.slice(0, 3)), text: readFileSync(join(MIGRATIONS, f), 'utf8') }));
  const homes = currentHomes(migrations);
  const definitions = new Set(DEFINITION_MANIFEST);

  it('knows where the hot-path functions live now (the scan itself is not empty)', () => {
    expect(homes.get('aq_finish_attempts')?.size).toBeGreaterThan(0);
    expect(homes.get('aq_claim_actions')?.size).toBeGreaterThan(0);
  });

  it('every source comment that names a function and its migration names the current one', () => {
    const sources = SOURCE_ROOTS.flatMap(filesUnder).filter(
      (f) => SOURCE_EXTENSION.test(f) && !IMMUTABLE.some((p) => p.test(f)) && f !== 'src/repository-references.spec.ts',
    );
    const offences = sources.flatMap((file) =>
      commentsOf(readFileSync(join(root, file), 'utf8'), file.endsWith('.sql')).flatMap((c) =>
        stalePointers(file, c.text.split('\n'), c.line, homes, definitions),
      ),
    );
    expect(offences).toEqual([]);
  });

  it('every doc line that names a function and its migration names the current one', () => {
    const docs = [...DOCS, ...filesUnder('docs').filter((f) => f.endsWith('.md'))].filter(exists);
    const offences = docs.flatMap((file) => stalePointers(file, readFileSync(join(root, file), 'utf8').split('\n'), 1, homes, definitions));
    expect(offences).toEqual([]);
  });
});

describe('stalePointers', () => {
  const homes = currentHomes([
    { number: 7, text: 'CREATE FUNCTION aq_finish_attempts() ...' },
    { number: 39, text: 'CREATE OR REPLACE FUNCTION public.aq_finish_attempts() ...' },
    { number: 41, text: 'CREATE FUNCTION aq_claim_actions() ...' },
    { number: 42, text: 'ALTER FUNCTION aq_claim_actions SET plan_cache_mode = force_custom_plan;' },
  ]);

  it('reports a pointer at a migration whose definition was restated later', () => {
    expect(stalePointers('x.ts', ['* `aq_finish_attempts` (src/database/sql/007-worker-finish.up.sql)'], 4, homes)).toEqual([
      'x.ts:4: aq_finish_attempts -> migration 007 (current: 039)',
    ]);
  });

  it('accepts the current home, a history that includes it, an alteration and a name on the line before', () => {
    expect(stalePointers('x.ts', ['aq_finish_attempts (migration 039)'], 1, homes)).toEqual([]);
    expect(stalePointers('x.ts', ['aq_finish_attempts: first 007, now sql/039-group-head-records.up.sql'], 1, homes)).toEqual([]);
    expect(stalePointers('x.ts', ['aq_claim_actions (migrations 041 and 042)', 'aq_claim_actions, migration 042'], 1, homes)).toEqual([]);
    expect(stalePointers('x.ts', ['the finish, `aq_finish_attempts`', '(migration 007)'], 1, homes)).toEqual([
      'x.ts:2: aq_finish_attempts -> migration 007 (current: 039)',
    ]);
    expect(stalePointers('x.md', ['aq_finish_attempts: migration 039', 'the wake-up: migration 007'], 1, homes)).toEqual([]);
  });

  it('sends a function that has its definition file to that file, whatever migration a pointer names', () => {
    const definitions = new Set(['aq_finish_attempts']);
    expect(stalePointers('x.ts', ['aq_finish_attempts (migration 039)'], 1, homes, definitions)).toEqual([
      'x.ts:1: aq_finish_attempts -> migration 039 (current: src/database/functions/aq_finish_attempts.sql)',
    ]);
    expect(stalePointers('x.ts', ['aq_finish_attempts: 039-group-head-records.up.sql'], 1, homes, definitions)).toEqual([
      'x.ts:1: aq_finish_attempts -> migration 039 (current: src/database/functions/aq_finish_attempts.sql)',
    ]);
    expect(stalePointers('x.ts', ['aq_finish_attempts (src/database/functions/aq_finish_attempts.sql; first migration 007)'], 1, homes, definitions)).toEqual(
      [],
    );
    expect(stalePointers('x.ts', ['aq_finish_attempts, the finish'], 1, homes, definitions)).toEqual([]);
  });

  it('reads ranges as history, not as a home', () => {
    expect(migrationsNamed('migrations 001-010, migration 014, sql/023-claim-frontier.up.sql, migrations 043 and 044')).toEqual([14, 23, 43, 44]);
  });
});
