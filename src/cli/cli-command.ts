import { Command } from 'commander';
import { CliFailure } from './cli-failure';
import { usageFailureOf } from './cli-input';
import { CliSession, openCliSession } from './cli-session';
import { CLI_EXIT } from './exit-codes';

/** The program's name, as `npx` and the package's `bin` know it. */
export const CLI_NAME = 'ordered-action-queue';

/** What a command answers: one JSON document for scripts (`--json`), lines for people. */
export interface CommandResult {
  json: unknown;
  text: string;
  /** Printed after the result, as the exit code and a line on stderr (`schema-version` on a schema this release cannot run on). */
  failure?: CliFailure;
}

/** The options every command takes. */
export interface CommonOptions {
  /** Print the result as one JSON document on stdout. */
  json?: boolean;
}

/** The usage line of `command`, e.g. `Usage: ordered-action-queue pause [options]`. */
export function usageLine(command: Command): string {
  return `Usage: ${CLI_NAME} ${command.name()} ${command.usage()}`;
}

/**
 * Adds the options every command takes (`--json`) and prints the command's
 * usage line after any error commander finds in its arguments.
 */
export function withCommonOptions(command: Command): Command {
  return command.option('--json', 'print the result as one JSON document on stdout (for scripts)').showHelpAfterError(usageLine(command));
}

/** How a command runs: what it reads from its options, whether it needs a runnable schema, what it does. */
export interface CommandSteps<I> {
  /** Refuse (exit 4) unless this release can run on the schema (every command that reads or changes the queue). */
  requireRunnable: boolean;
  /** Its input from the options, validated before anything is sent to the database (throws CliFailure, exit 2). */
  input: () => I | Promise<I>;
  /** What it does on the session, answering its result. */
  run: (session: CliSession, input: I) => Promise<CommandResult>;
}

/**
 * Runs one command: validates its input, opens a session on the queue's
 * database, runs it, prints its result (JSON or text) on stdout and closes
 * the session. A bad-arguments failure gets the command's usage line.
 *
 * @param command the commander command (for its usage line).
 * @param options its parsed options.
 * @param steps what the command reads and does.
 * @throws CliFailure with the exit code (main.ts prints it), or the command's own error.
 */
export async function runCommand<I>(command: Command, options: CommonOptions, steps: CommandSteps<I>): Promise<void> {
  try {
    const input = await steps.input();
    const session = await openCliSession(process.env, { requireRunnable: steps.requireRunnable });
    let result: CommandResult;
    try {
      result = await steps.run(session, input);
    } finally {
      await session.close();
    }
    printResult(result, options);
    if (result.failure) throw result.failure;
  } catch (thrown) {
    // A service's refusal of its input (a 400 over REST) is a bad argument here.
    const error = usageFailureOf(thrown) ?? thrown;
    if (error instanceof CliFailure && error.exitCode === CLI_EXIT.usage && error.usageLine) error.message = `${error.message}\n${usageLine(command)}`;
    throw error;
  }
}

/** Writes a result on stdout: the JSON document, or the text for people. */
export function printResult(result: CommandResult, options: CommonOptions): void {
  process.stdout.write(options.json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
}
