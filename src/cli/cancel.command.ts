import { Command } from 'commander';
import { registerBulkCommand } from './bulk-command';

/** `cancel <filter> [--apply]`: cancels pending, failed or running actions matching a filter; a dry run unless `--apply` (bulk-command.ts). */
export function registerCancelCommand(program: Command): void {
  registerBulkCommand(program, 'cancel', 'cancel the pending, failed or running actions matching a filter (a dry run unless --apply)');
}
