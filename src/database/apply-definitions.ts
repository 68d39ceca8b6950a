import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource, QueryRunner } from 'typeorm';
import { compareReleases } from '../release/compare-releases';
import { RELEASE_VERSION } from '../release/release-version';
import { LIFT_DBA_SESSION_LIMITS } from './dba-session-limits';
import { DEFINITION_MANIFEST } from './functions/definition-manifest';
import { MIGRATION_LOCK_KEY } from './migration-lock';

/** Folder of the definition files, `<name>.sql` (copied next to the compiled code by `npm run build`). */
export const DEFINITIONS_DIR = join(__dirname, 'functions');

/** Table recording which definition was applied with which checksum, by which release (migration 048). */
export const DEFINITIONS_TABLE = 'schema_definitions';

/** One definition file: a function, trigger function or view, its text and the text's checksum. */
export interface Definition {
  name: string;
  sql: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
}

/**
 * The definitions of `dir` in manifest order (DEFINITION_MANIFEST), read from their files.
 *
 * @param dir the folder (default {@link DEFINITIONS_DIR}).
 * @param manifest the names, in the order to apply them.
 * @throws Error (ENOENT) when a listed file is missing.
 */
export function readDefinitions(dir = DEFINITIONS_DIR, manifest: readonly string[] = DEFINITION_MANIFEST): Definition[] {
  return manifest.map((name) => {
    const bytes = readFileSync(join(dir, `${name}.sql`));
    return { name, sql: bytes.toString('utf8'), sha256: createHash('sha256').update(bytes).digest('hex') };
  });
}

let shipped: Definition[] | undefined;

/** This release's definitions, read once. */
export function shippedDefinitions(): Definition[] {
  shipped ??= readDefinitions();
  return shipped;
}

/** Something that runs a query: a DataSource or a connected QueryRunner. */
type Queryable = Pick<DataSource, 'query'> | Pick<QueryRunner, 'query'>;

/** A definition in the database applied by a newer release than this one: this instance refuses to start. */
export class NewerDefinitionsError extends Error {
  constructor(rows: { name: string; release: string }[]) {
    const list = rows.map((r) => `${r.name} (${r.release})`).join(', ');
    super(
      `The action queue's definitions in this database are newer than release ${RELEASE_VERSION} (${list} were applied by a later release); ` +
        'run that release or a newer one: an instance never runs against, nor downgrades, definitions it does not know (README, "Upgrading")',
    );
    this.name = 'NewerDefinitionsError';
  }
}

/**
 * The rows of `schema`'s definitions table, or null when the table does not
 * exist yet (a database before migration 048).
 */
async function recorded(db: Queryable, schema: string): Promise<{ name: string; sha256: string; release: string }[] | null> {
  const table = `${quoteIdentifier(schema)}.${DEFINITIONS_TABLE}`;
  const [{ exists }]: { exists: boolean }[] = await db.query('SELECT to_regclass($1) IS NOT NULL AS exists', [table]);
  return exists ? db.query(`SELECT name, sha256, release FROM ${table} ORDER BY name`) : null;
}

/**
 * The definitions of the database applied by a release newer than this one
 * (versions compared as numbers), by name; none when the table does not exist.
 */
export async function newerDefinitions(db: Queryable, schema: string): Promise<{ name: string; release: string }[]> {
  return ((await recorded(db, schema)) ?? []).filter((r) => compareReleases(r.release, RELEASE_VERSION) > 0).map(({ name, release }) => ({ name, release }));
}

/**
 * Throws when a definition of the database was applied by a release newer
 * than this one (versions compared as numbers), as refuseNewerSchema does for
 * migrations: this release's statements may not fit it, and re-applying its
 * own definitions would downgrade the newer release's.
 *
 * @throws NewerDefinitionsError naming the newer rows.
 */
export async function refuseNewerDefinitions(db: Queryable, schema: string): Promise<void> {
  const newer = await newerDefinitions(db, schema);
  if (newer.length > 0) throw new NewerDefinitionsError(newer);
}

/**
 * Names of the definitions whose checksum differs from the one recorded (or
 * that have none recorded); empty when the definitions table does not exist
 * yet (then migration 048 is pending, which says more).
 */
export async function pendingDefinitions(db: Queryable, schema: string, definitions = shippedDefinitions()): Promise<string[]> {
  const rows = await recorded(db, schema);
  if (rows === null) return [];
  const applied = new Map(rows.map((r) => [r.name, r.sha256]));
  return definitions.filter((d) => applied.get(d.name) !== d.sha256).map((d) => d.name);
}

/**
 * Applies the current definitions of the queue's functions, trigger functions
 * and views (src/database/functions, one file each) after the numbered
 * migrations, as Flyway's repeatable migrations do: a definition is applied
 * when its file's checksum differs from the one recorded in
 * `schema_definitions` (or none is), in manifest order, and recorded with its
 * checksum and this release; an unchanged one is left alone. Rows of
 * definitions this release no longer ships are forgotten (a numbered
 * migration dropped the object). All in one transaction: none or all.
 *
 * The transaction's search_path is exactly the queue's schema, as for a
 * numbered migration (sql-file-migration.ts), so each file's unqualified
 * names land there and `SET search_path FROM CURRENT` pins it; a DBA's
 * statement or lock timeout is lifted. It runs under the migration lock
 * (MIGRATION_LOCK_KEY, transaction level): taken here unless the caller
 * holds it (MigrationsService.migrate holds it on another connection, and
 * would wait for itself).
 *
 * @param dataSource a DataSource on the queue's database.
 * @param schema the queue's schema.
 * @param options `lockHeld`: the caller holds the migration lock; `definitions`: what to apply (default this release's files).
 * @returns the names applied, in order.
 * @throws NewerDefinitionsError when a newer release applied a definition (checked under the lock: nothing is downgraded);
 *   Error when schema_definitions does not exist (migration 048 not applied); the SQL error of a definition (all rolled back).
 */
export async function applyDefinitions(dataSource: DataSource, schema: string, options: { lockHeld: boolean; definitions?: Definition[] }): Promise<string[]> {
  const definitions = options.definitions ?? shippedDefinitions();
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    try {
      await runner.query(`SELECT set_config('search_path', quote_ident($1), true)`, [schema]);
      await runner.query(LIFT_DBA_SESSION_LIMITS);
      if (!options.lockHeld) await runner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const rows = await recorded(runner, schema);
      if (rows === null) {
        throw new Error(`The action queue's table ${DEFINITIONS_TABLE} does not exist in schema "${schema}": apply the migrations first (migration 048)`);
      }
      await refuseNewerDefinitions(runner, schema);
      const applied = new Map(rows.map((r) => [r.name, r.sha256]));
      const changed = definitions.filter((d) => applied.get(d.name) !== d.sha256);
      for (const definition of changed) {
        await runner.query(definition.sql);
        await runner.query(
          `INSERT INTO ${DEFINITIONS_TABLE} (name, sha256, release) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, release = excluded.release, applied_at = now()`,
          [definition.name, definition.sha256, RELEASE_VERSION],
        );
      }
      await runner.query(`DELETE FROM ${DEFINITIONS_TABLE} WHERE NOT (name = ANY($1))`, [definitions.map((d) => d.name)]);
      await runner.commitTransaction();
      return changed.map((d) => d.name);
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  } finally {
    await runner.release();
  }
}

/** `name` as a quoted SQL identifier. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
