/**
 * The exit codes of the command line (`ordered-action-queue <command>`), as
 * docs/operations.md ("Command line") documents them for scripts.
 */
export const CLI_EXIT = {
  /** The command did what it was asked (a dry run included; `resume` of a target that was not paused too). */
  ok: 0,
  /** Anything else went wrong: a statement failed, the database went away mid-command, a bug. The message says what. */
  unexpected: 1,
  /**
   * Bad arguments or settings: an unknown command or option, a missing or
   * invalid value, options that do not go together, an invalid setting, or
   * DATABASE_URL not set. The message names
   * the argument (or setting), followed by the command's usage line (not
   * for a setting). Nothing was changed: arguments are checked before connecting.
   */
  usage: 2,
  /**
   * The database cannot be reached or refused the login (nothing listens, no
   * answer within the connect timeout of 5 s, a refused user or password, no
   * such database).
   */
  database: 3,
  /**
   * The queue's schema in this database is not one this release can run on:
   * migrations of this release are not applied (run `migrate`), or a later
   * release applied migrations this one does not know (use that release).
   * `migrate` itself exits 4 only for the second.
   */
  schema: 4,
} as const;

/** One of {@link CLI_EXIT}'s codes. */
export type CliExitCode = (typeof CLI_EXIT)[keyof typeof CLI_EXIT];
