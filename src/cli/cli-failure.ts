import { CliExitCode } from './exit-codes';

/**
 * A command that cannot do what it was asked, for a reason the message
 * states: main.ts prints the message on stderr (and, for bad arguments, the
 * command's usage line) and exits with `exitCode`.
 */
export class CliFailure extends Error {
  /**
   * @param exitCode the process's exit code (exit-codes.ts).
   * @param message one line for people, naming the argument, setting or server at fault.
   * @param options `cause`: the error behind it; `usageLine`: false when the
   *   command's usage line would not help (an invalid setting), default true for exit 2.
   */
  constructor(
    readonly exitCode: CliExitCode,
    message: string,
    options: { cause?: unknown; usageLine?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CliFailure';
    this.usageLine = options.usageLine ?? true;
  }

  /** Whether the command's usage line follows the message (bad arguments). */
  readonly usageLine: boolean;
}
