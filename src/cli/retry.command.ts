import { Command } from 'commander';
import { registerBulkCommand } from './bulk-command';

/** `retry <filter> [--apply]`: retries failed actions matching a filter; a dry run unless `--apply` (bulk-command.ts). */
export function registerRetryCommand(program: Command): void {
  registerBulkCommand(program, 'retry', 'retry the failed actions matching a filter (a dry run unless --apply)');
}
