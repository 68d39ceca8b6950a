import { Command } from 'commander';
import { CreatePauseDto } from '../flow-control/dto/create-pause.dto';
import { CliFailure } from './cli-failure';
import { validateAs } from './cli-input';
import { CLI_EXIT } from './exit-codes';

/** The target options of `pause` and `resume`: exactly one of them. */
export interface PauseTargetOptions {
  queue?: boolean;
  type?: string;
  lockId?: string;
  groupKey?: string;
  tenant?: string;
}

/** The targets, as their options are written in messages. */
const TARGETS = '--queue, --type <type>, --lock-id <id>, --group-key <key> or --tenant <tenant>';

/** Adds the target options of `pause` and `resume` to `command` (the scopes of the pauses REST). */
export function addPauseTargetOptions(command: Command, verb: string): Command {
  return command
    .option('--queue', `${verb} the whole queue`)
    .option('--type <type>', `${verb} one action type`)
    .option('--lock-id <id>', `${verb} one group, by its lock id (a signed 64-bit integer)`)
    .option('--group-key <key>', `${verb} one group, by its string group key`)
    .option('--tenant <tenant>', `${verb} one tenant (docs/tenants.md)`);
}

/**
 * The pause of the options as the pauses REST takes it (CreatePauseDto,
 * validated by its rules), with `extra` fields (reason, forMs).
 *
 * @throws CliFailure (exit 2) when no target or more than one is given, or a value is invalid (naming its option).
 */
export async function pauseTargetOf(options: PauseTargetOptions, extra: Partial<CreatePauseDto> = {}): Promise<CreatePauseDto> {
  const given = (['queue', 'type', 'lockId', 'groupKey', 'tenant'] as const).filter((name) => options[name] !== undefined);
  const flag = { queue: '--queue', type: '--type', lockId: '--lock-id', groupKey: '--group-key', tenant: '--tenant' };
  if (given.length === 0) throw new CliFailure(CLI_EXIT.usage, `Give a target: ${TARGETS}`);
  if (given.length > 1) throw new CliFailure(CLI_EXIT.usage, `Give one target, not both ${flag[given[0]]} and ${flag[given[1]]}`);
  const [target] = given;
  const scope = target === 'queue' ? 'queue' : target === 'type' ? 'type' : target === 'tenant' ? 'tenant' : 'group';
  return validateAs(CreatePauseDto, { scope, type: options.type, lockId: options.lockId, groupKey: options.groupKey, tenant: options.tenant, ...extra });
}

/** The target of a pause in words: `the whole queue`, `type invoice.send`, `group 26`, `group key "tenant:42"`, `tenant acme`. */
export function describePauseTarget(target: {
  scope: string;
  type?: string | null;
  lockId?: string | null;
  groupKey?: string | null;
  tenant?: string | null;
}): string {
  if (target.scope === 'queue') return 'the whole queue';
  if (target.scope === 'tenant') return `tenant ${target.tenant}`;
  if (target.scope === 'type') return `type ${target.type}`;
  return target.groupKey !== undefined && target.groupKey !== null ? `group key ${JSON.stringify(target.groupKey)}` : `group ${target.lockId}`;
}
