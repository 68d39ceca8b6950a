import { Command } from 'commander';
import type { PauseScope } from '../flow-control/pause-scope';
import { PausesService } from '../flow-control/pauses.service';
import { CommonOptions, runCommand, withCommonOptions } from './cli-command';
import { addPauseTargetOptions, describePauseTarget, pauseTargetOf, PauseTargetOptions } from './pause-target';

/** The JSON document of `resume`. */
export interface ResumeResult {
  /** The queue, a type, a group or a tenant. */
  scope: PauseScope;
  type: string | null;
  lockId: string | null;
  groupKey: string | null;
  tenant: string | null;
  /** Whether the target was paused (false: nothing changed). */
  resumed: boolean;
}

/**
 * `resume --queue | --type <type> | --lock-id <id> | --group-key <key> | --tenant <tenant>`:
 * ends the pause of a target, named as `pause` names it (the psql functions'
 * `aq_resume`); every instance claims what it held back at once. A target
 * that was not paused is not an error (`resumed: false`).
 */
export function registerResumeCommand(program: Command): void {
  const command = addPauseTargetOptions(program.command('resume').description('resume what pause paused'), 'resume');
  withCommonOptions(command).action((options: CommonOptions & PauseTargetOptions, cmd: Command) =>
    runCommand(cmd, options, {
      requireRunnable: true,
      input: () => pauseTargetOf(options),
      run: async (session, target) => {
        const resumed = await new PausesService(session.database.dataSource).resumeTarget(target);
        const result: ResumeResult = {
          scope: target.scope,
          type: target.type ?? null,
          lockId: target.lockId ?? null,
          groupKey: target.groupKey ?? null,
          tenant: target.tenant ?? null,
          resumed,
        };
        const what = describePauseTarget(target);
        return { json: result, text: resumed ? `Resumed ${what}.` : `${what.charAt(0).toUpperCase()}${what.slice(1)} was not paused; nothing changed.` };
      },
    }),
  );
}
