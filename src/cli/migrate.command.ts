import { Command } from 'commander';
import { RELEASE_VERSION } from '../release/release-version';
import { CommandResult, CommonOptions, runCommand, withCommonOptions } from './cli-command';
import { CliSession, refuseUnrunnableSchema } from './cli-session';

/** Options of `migrate`. */
interface MigrateOptions extends CommonOptions {
  /** List what would run, change nothing. */
  dryRun?: boolean;
}

/** The JSON document of `migrate`. */
export interface MigrateResult {
  /** The queue's schema. */
  schema: string;
  dryRun: boolean;
  /** Migrations applied (or, in a dry run, that would be), in order. */
  migrations: string[];
  /** Whether a release 0.1 schema was (would be) converted in place first. */
  release01Conversion: boolean;
}

/**
 * `migrate [--dry-run]`: applies the queue's pending migrations exactly as the
 * service's start-up does (MigrationsService: its advisory lock, the 0.1
 * conversion, the refusals of a newer schema or of instances of another
 * release connected, the checks after). `--dry-run` lists what would run and
 * changes nothing. Exit 4 when a later release migrated the schema.
 */
export function registerMigrateCommand(program: Command): void {
  const command = program
    .command('migrate')
    .description("apply the queue's pending migrations, as the service does at start-up")
    .option('--dry-run', 'list the migrations that would run; change nothing');
  withCommonOptions(command).action((options: MigrateOptions, cmd: Command) =>
    runCommand(cmd, options, { requireRunnable: false, input: () => undefined, run: (session) => migrate(session, options.dryRun === true) }),
  );
}

async function migrate(session: CliSession, dryRun: boolean): Promise<CommandResult> {
  const before = await session.migrations.schemaState();
  if (before.newer.length > 0) refuseUnrunnableSchema(before);
  let migrations = before.pending;
  if (!dryRun) {
    // The service's own start-up path: lock, refusals, 0.1 conversion, migrations, name and setting checks.
    await session.migrations.onModuleInit();
    // What this run applied under the lock: another `migrate` or instance may have applied them first.
    migrations = [...session.migrations.appliedAtStartUp];
  }
  const result: MigrateResult = { schema: before.schema, dryRun, migrations, release01Conversion: before.release01 };
  return { json: result, text: describe(result, before.known.length) };
}

function describe(result: MigrateResult, known: number): string {
  const lines: string[] = [];
  if (result.release01Conversion)
    lines.push(result.dryRun ? 'Would first convert the release 0.1 schema in place.' : 'Converted the release 0.1 schema in place.');
  if (result.migrations.length === 0) {
    lines.push(`Nothing to apply: schema "${result.schema}" has all ${known} migrations of release ${RELEASE_VERSION}.`);
  } else {
    const n = result.migrations.length;
    lines.push(`${result.dryRun ? 'Would apply' : 'Applied'} ${n} migration${n === 1 ? '' : 's'} to schema "${result.schema}":`);
    lines.push(...result.migrations.map((name) => `  ${name}`));
    if (result.dryRun) lines.push('Nothing was changed (dry run).');
  }
  return lines.join('\n');
}
