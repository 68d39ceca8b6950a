/**
 * One statement of a SQL script as {@link splitSqlStatements} cut it.
 * `comment` is the run of `--` comment lines right above the statement
 * (blank lines between paragraphs of it kept, the prefixes kept); `sql` is
 * the statement from its first keyword to its terminating `;` (included
 * when present).
 */
export interface SqlStatement {
  comment: string;
  sql: string;
}

/**
 * Splits a SQL script into its statements at the top-level semicolons: those
 * outside single-quoted strings (E'' strings with their backslash escapes),
 * double-quoted identifiers, dollar-quoted bodies (`$$`, `$function$`, any
 * `$tag$`) and `--` / nested `/* *\/` comments, as PostgreSQL's own lexer
 * does. A function body full of semicolons is one statement. Used to read the
 * released migrations' definitions back (released-definitions.ts), and to run
 * a migration file one statement at a time (sql-file-migration.ts: Citus
 * forwards some DDL's text to other nodes as one prepared statement, which
 * refuses several commands).
 *
 * @param script the text of a `.sql` file.
 * @returns its statements in order; text after the last semicolon that holds
 *   anything but whitespace and comments is a last statement without one.
 */
export function splitSqlStatements(script: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  const push = (end: number): void => {
    const chunk = script.slice(start, end);
    const parsed = separateLeadingComment(chunk);
    if (parsed.sql.trim() !== '') statements.push(parsed);
    start = end;
  };
  while (i < n) {
    const c = script[i];
    if (c === '-' && script[i + 1] === '-') {
      const eol = script.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else if (c === '/' && script[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (script[i] === '/' && script[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (script[i] === '*' && script[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'") {
      // E'...' (or e'...'): backslash escapes; otherwise only '' escapes a quote.
      const escapes = i > 0 && /[eE]/.test(script[i - 1]) && (i < 2 || !/[\w$]/.test(script[i - 2]));
      i++;
      while (i < n) {
        if (escapes && script[i] === '\\') i += 2;
        else if (script[i] === "'" && script[i + 1] === "'") i += 2;
        else if (script[i] === "'") break;
        else i++;
      }
      i++;
    } else if (c === '"') {
      const close = script.indexOf('"', i + 1);
      i = close < 0 ? n : close + 1;
      // "" inside an identifier is an escaped quote: the loop sees it as two identifiers, harmlessly.
    } else if (c === '$' && (i === 0 || !/[\w$]/.test(script[i - 1]))) {
      // A dollar quote opens with $tag$ where tag is empty or an identifier; $1 is a parameter.
      const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(script.slice(i, i + 64));
      if (tag) {
        const close = script.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? n : close + tag[0].length;
      } else i++;
    } else if (c === ';') {
      i++;
      push(i);
    } else i++;
  }
  push(n);
  return statements;
}

/** A chunk of script cut into the `--` comment lines right above its statement and the statement itself. */
function separateLeadingComment(chunk: string): SqlStatement {
  const lines = chunk.replace(/^[ \t]*\r?\n/, '').split('\n');
  let first = 0;
  while (first < lines.length && (lines[first].trim() === '' || lines[first].trim().startsWith('--'))) first++;
  // The comment belongs to the statement when it is a block of comment lines
  // that ends right above it; a paragraph separated by a blank line from the
  // statement (a file's header) is kept too: it is the reasoning of what follows.
  const commentLines = lines.slice(0, first);
  while (commentLines.length > 0 && commentLines[0].trim() === '') commentLines.shift();
  while (commentLines.length > 0 && commentLines[commentLines.length - 1].trim() === '') commentLines.pop();
  return { comment: commentLines.join('\n'), sql: lines.slice(first).join('\n').trim() };
}
