import { userInfo } from 'node:os';
import { Command } from 'commander';
import { BulkOperationResource } from '../bulk-operations/bulk-operation.resource';
import { BULK_ACCEPTED_STATUSES, BulkOperationsService } from '../bulk-operations/bulk-operations.service';
import { NO_QUEUE_EVENTS } from '../events/no-queue-events';
import { BulkFilterDto } from '../bulk-operations/dto/bulk-operation.dto';
import { CliFailure } from './cli-failure';
import { CommonOptions, runCommand, withCommonOptions } from './cli-command';
import { validateAs } from './cli-input';
import { CLI_EXIT } from './exit-codes';

/** Options of `retry` and `cancel`: the filter of `POST /bulk-operations`, and `--apply`. */
interface BulkOptions extends CommonOptions {
  type?: string;
  lockId?: string;
  groupKey?: string;
  status?: string;
  errorContains?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Act; without it the command is a dry run. */
  apply?: boolean;
}

const FILTERS = '--type, --lock-id, --group-key, --status, --error-contains, --created-after, --created-before';

/**
 * `retry` / `cancel` by filter: `POST /bulk-operations` from the command line
 * (BulkOperationsService: chunks of 500 in id order, recorded in the audit
 * table with the actor `cli:<os user>`). A dry run unless `--apply` is given:
 * it counts what matches and changes nothing. The JSON document is the
 * operation's audit row, as the route answers it.
 *
 * @param operation `retry` (failed actions) or `cancel` (pending, failed, running).
 * @param description the command's line in the help.
 */
export function registerBulkCommand(program: Command, operation: 'retry' | 'cancel', description: string): void {
  const command = program
    .command(operation)
    .description(description)
    .option('--type <type>', 'actions of this type')
    .option('--lock-id <id>', 'actions of this group, by lock id')
    .option('--group-key <key>', 'actions of this group, by string group key')
    .option('--status <status>', operation === 'retry' ? 'failed (the only status retry takes)' : 'pending, failed or running (default: all three)')
    .option('--error-contains <text>', 'whose last error contains this text (case-sensitive)')
    .option('--created-after <time>', 'created at or after (ISO 8601 with Z or an offset)')
    .option('--created-before <time>', 'created before (ISO 8601 with Z or an offset)')
    .option('--apply', `${operation} the matching actions (without it: a dry run that only counts them)`);
  withCommonOptions(command).action((options: BulkOptions, cmd: Command) =>
    runCommand(cmd, options, {
      requireRunnable: true,
      input: () => filterOf(operation, options),
      run: async (session, filter) => {
        const done = await new BulkOperationsService(session.pool, NO_QUEUE_EVENTS).run(operation, filter, options.apply !== true, cliActor());
        return { json: done, text: describe(done) };
      },
    }),
  );
}

/** The filter of the options, validated by the route's rules. @throws CliFailure (exit 2) when none is given, one is invalid or the status is not one the operation takes. */
async function filterOf(operation: 'retry' | 'cancel', options: BulkOptions): Promise<BulkFilterDto> {
  const { type, lockId, groupKey, status, errorContains, createdAfter, createdBefore } = options;
  const filter = { type, lockId, groupKey, status, errorContains, createdAfter, createdBefore };
  if (Object.values(filter).every((v) => v === undefined)) throw new CliFailure(CLI_EXIT.usage, `Give at least one filter: ${FILTERS}`);
  const accepted = BULK_ACCEPTED_STATUSES[operation];
  // The service refuses it too, but only once connected: a bad argument is refused before anything is sent.
  if (status !== undefined && !accepted.includes(status)) {
    throw new CliFailure(CLI_EXIT.usage, `--status ${status} cannot be ${operation === 'retry' ? 'retried' : 'cancelled'}; allowed: ${accepted.join(', ')}`);
  }
  return validateAs(BulkFilterDto, filter);
}

/** The audit row's actor: `cli:<os user>`, or `cli` when the user cannot be told. */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

function describe(op: BulkOperationResource): string {
  const verb = op.operation === 'retry' ? 'retried' : 'cancelled';
  const matching = `${op.matched} matching action${op.matched === 1 ? '' : 's'}`;
  if (op.dryRun) return `Dry run (bulk operation ${op.id}): ${matching} would be ${verb}. Nothing was changed; add --apply to act.`;
  return `${verb.charAt(0).toUpperCase()}${verb.slice(1)} ${op.applied} of ${matching} (bulk operation ${op.id}).`;
}
