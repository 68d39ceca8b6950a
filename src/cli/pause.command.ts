import { Command } from 'commander';
import { PausesService } from '../flow-control/pauses.service';
import { CommonOptions, runCommand, withCommonOptions } from './cli-command';
import { wholeNumberOrText } from './cli-input';
import { addPauseTargetOptions, describePauseTarget, pauseTargetOf, PauseTargetOptions } from './pause-target';

/** Options of `pause`. */
interface PauseOptions extends CommonOptions, PauseTargetOptions {
  reason?: string;
  forMs?: string;
}

/**
 * `pause --queue | --type <type> | --lock-id <id> | --group-key <key> | --tenant <tenant>
 * [--reason <text>] [--for-ms <ms>]`: what `POST /pauses` does
 * (PausesService, with the route's validation). The JSON document is the
 * pause as the route answers it.
 */
export function registerPauseCommand(program: Command): void {
  const command = addPauseTargetOptions(
    program.command('pause').description('pause the queue, an action type, a group or a tenant: enqueue goes on, nothing paused is claimed'),
    'pause',
  )
    .option('--reason <text>', 'why, shown in GET /pauses')
    .option('--for-ms <ms>', 'resume by itself after this many milliseconds (at most 7 days); absent: until resumed');
  withCommonOptions(command).action((options: PauseOptions, cmd: Command) =>
    runCommand(cmd, options, {
      requireRunnable: true,
      input: () => pauseTargetOf(options, { reason: options.reason, forMs: wholeNumberOrText(options.forMs) as number | undefined }),
      run: async (session, target) => {
        const pause = await new PausesService(session.database.dataSource).pause(target);
        const until = pause.until ? ` until ${pause.until}` : ' until resumed';
        return { json: pause, text: `Paused ${describePauseTarget(pause)}${until} (pause ${pause.id}).` };
      },
    }),
  );
}
