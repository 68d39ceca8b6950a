import { Command } from 'commander';
import { QueueSchemaState } from '../database/migrations.service';
import { RELEASE_VERSION } from '../release/release-version';
import { CliFailure } from './cli-failure';
import { CommonOptions, runCommand, withCommonOptions } from './cli-command';
import { refuseUnrunnableSchema } from './cli-session';

/** The JSON document of `schema-version`. */
export interface SchemaVersionResult {
  /** This release (package.json's version). */
  release: string;
  /** The queue's schema. */
  schema: string;
  /** How many of this release's migrations are applied, of `known`. */
  applied: number;
  known: number;
  /** The last migration applied (this release's order, then a later release's), null when none. */
  latestApplied: string | null;
  /** This release's last migration. */
  latestKnown: string;
  /** This release's migrations not applied yet, in order. */
  pending: string[];
  /** Migrations a later release applied. */
  newer: string[];
  /** Whether this release can run on the schema (nothing pending, nothing newer). */
  runnable: boolean;
}

/**
 * `schema-version`: the queue's migrations applied in the database against
 * this release's, and whether this release can run on them. Exit 0 when it
 * can, 4 (after printing the result) when it cannot, so a deploy script can
 * check before starting a release.
 */
export function registerSchemaVersionCommand(program: Command): void {
  const command = program
    .command('schema-version')
    .description("the queue's applied migrations against this release's, and whether this release can run on them");
  withCommonOptions(command).action((options: CommonOptions, cmd: Command) =>
    runCommand(cmd, options, {
      requireRunnable: false,
      input: () => undefined,
      run: async (session) => {
        const state = await session.migrations.schemaState();
        const result = toResult(state);
        return { json: result, text: describe(result), failure: result.runnable ? undefined : failureOf(state) };
      },
    }),
  );
}

function toResult(state: QueueSchemaState): SchemaVersionResult {
  return {
    release: RELEASE_VERSION,
    schema: state.schema,
    applied: state.applied.length - state.newer.length,
    known: state.known.length,
    latestApplied: state.applied.at(-1) ?? null,
    latestKnown: state.known[state.known.length - 1],
    pending: state.pending,
    newer: state.newer,
    runnable: state.pending.length === 0 && state.newer.length === 0,
  };
}

/** The exit-4 failure {@link refuseUnrunnableSchema} throws for this state. */
function failureOf(state: QueueSchemaState): CliFailure {
  try {
    refuseUnrunnableSchema(state);
  } catch (error) {
    if (error instanceof CliFailure) return error;
    throw error;
  }
  throw new Error('schema-version: a schema with pending or newer migrations was not refused');
}

function describe(r: SchemaVersionResult): string {
  const lines = [
    `schema            "${r.schema}"`,
    `applied           ${r.applied} of release ${r.release}'s ${r.known} migrations${r.newer.length > 0 ? `, and ${r.newer.length} of a later release` : ''}`,
    `latest applied    ${r.latestApplied ?? 'none'}`,
    `latest known      ${r.latestKnown}`,
  ];
  if (r.runnable) lines.push(`release ${r.release} can run on this schema`);
  else if (r.newer.length > 0) lines.push(`release ${r.release} cannot run on this schema: it is newer (${r.newer.join(', ')})`);
  else
    lines.push(
      `release ${r.release} cannot run on this schema until ${r.pending.length} migration${r.pending.length === 1 ? ' is' : 's are'} applied (run migrate)`,
    );
  return lines.join('\n');
}
