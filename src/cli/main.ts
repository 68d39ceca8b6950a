#!/usr/bin/env node
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { Command, CommanderError } from 'commander';
import { RELEASE_VERSION } from '../release/release-version';
import { registerCancelCommand } from './cancel.command';
import { CLI_NAME } from './cli-command';
import { CliFailure } from './cli-failure';
import { CliLogger } from './cli-logger';
import { CLI_EXIT, CliExitCode } from './exit-codes';
import { registerMigrateCommand } from './migrate.command';
import { registerPauseCommand } from './pause.command';
import { registerResumeCommand } from './resume.command';
import { registerRetryCommand } from './retry.command';
import { registerSchemaVersionCommand } from './schema-version.command';
import { registerStatusCommand } from './status.command';

/**
 * How long the process may stay alive after its command ended (ms): a
 * connection or timer nobody closed must not hang a script.
 */
const EXIT_GRACE_MS = 5_000;

/**
 * The command line's program: every command, with the service's settings
 * from the environment (DATABASE_URL required, DATABASE_SCHEMA, DATABASE_POOLER).
 * Commander's own errors (unknown command or option, missing value) throw
 * CommanderError instead of exiting, so {@link runCli} picks the exit code.
 */
export function cliProgram(): Command {
  const program = new Command(CLI_NAME)
    .description(
      'Operate an ordered action queue from the shell, with the settings of the service (DATABASE_URL, DATABASE_SCHEMA). ' +
        'Exit codes: 0 ok, 1 unexpected error, 2 bad arguments or settings, 3 database unreachable or login refused, ' +
        '4 schema not migrated or newer than this release (docs/operations.md, "Command line").',
    )
    .version(RELEASE_VERSION)
    .exitOverride()
    .showHelpAfterError(`Usage: ${CLI_NAME} <command> [options] (${CLI_NAME} --help lists the commands)`);
  registerMigrateCommand(program);
  registerSchemaVersionCommand(program);
  registerStatusCommand(program);
  registerPauseCommand(program);
  registerResumeCommand(program);
  registerRetryCommand(program);
  registerCancelCommand(program);
  return program;
}

/**
 * Runs the command line once and answers its exit code (exit-codes.ts);
 * results go to stdout, errors and warnings to stderr.
 *
 * @param argv the process's arguments (`process.argv`: node, the script, then the command).
 */
export async function runCli(argv: string[]): Promise<CliExitCode> {
  // The services' progress lines would mix with the result on stdout (cli-logger.ts).
  Logger.overrideLogger(new CliLogger());
  try {
    await cliProgram().parseAsync(argv);
    return CLI_EXIT.ok;
  } catch (error) {
    // Commander has printed its message and the usage line; --help and --version end with 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? CLI_EXIT.ok : CLI_EXIT.usage;
    if (error instanceof CliFailure) {
      process.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`${CLI_NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return CLI_EXIT.unexpected;
  }
}

if (require.main === module) {
  void runCli(process.argv).then((code) => {
    // Not process.exit at once: stdout to a pipe is written asynchronously, and the result must get out whole.
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  });
}
