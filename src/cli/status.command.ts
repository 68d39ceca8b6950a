import { Command } from 'commander';
import { StatsResource } from '../actions/action.resource';
import { QueueStatsService } from '../actions/stats/queue-stats.service';
import { ActionStatus } from '../vocabulary';
import { CommonOptions, runCommand, withCommonOptions } from './cli-command';

/**
 * `status`: the queue-wide figures of `GET /stats` (QueueStatsService), the
 * same JSON document with `--json`.
 */
export function registerStatusCommand(program: Command): void {
  const command = program.command('status').description('the queue-wide figures of GET /stats: counts by status, oldest due action, blocked groups, pauses');
  withCommonOptions(command).action((options: CommonOptions, cmd: Command) =>
    runCommand(cmd, options, {
      requireRunnable: true,
      input: () => undefined,
      run: async (session) => {
        const stats = await new QueueStatsService(session.database.dataSource, session.settings).stats();
        return { json: stats, text: describe(stats) };
      },
    }),
  );
}

function describe(s: StatsResource): string {
  const b = s.pendingBreakdown;
  const count = (status: ActionStatus): string => `${s.byStatus[status]}${s.estimated.includes(status) ? ' (estimate)' : ''}`;
  return [
    `pending     ${count('pending')} (due ${b.due}, scheduled ${b.scheduled}, paused ${b.paused}, waiting for a rate limit ${b.waitingForRateLimit}, behind their group's head ${b.behindHead})`,
    `running     ${count('running')}`,
    `done        ${count('done')}`,
    `failed      ${count('failed')}`,
    `cancelled   ${count('cancelled')}`,
    `oldest due  ${s.oldestPendingAgeSeconds === null ? 'none waiting' : `waiting ${s.oldestPendingAgeSeconds} s`}`,
    `blocked     ${s.blockedGroups} group${s.blockedGroups === 1 ? '' : 's'}`,
    `paused      ${s.paused.queue ? 'the whole queue, ' : ''}${s.paused.types} type${s.paused.types === 1 ? '' : 's'}, ${s.paused.groups} group${s.paused.groups === 1 ? '' : 's'}`,
    ...s.tenants.top.map((t) => `tenant      ${t.tenant}: backlog ${t.backlog}, running ${t.running}${waited(t.oldestWaitingAgeSeconds)}`),
    ...(s.tenants.others.tenants > 0
      ? [
          `tenants     ${s.tenants.others.tenants} more: backlog ${s.tenants.others.backlog}, running ${s.tenants.others.running}${waited(s.tenants.others.oldestWaitingAgeSeconds)}`,
        ]
      : []),
  ].join('\n');
}

function waited(seconds: number | null): string {
  return seconds === null ? '' : `, oldest waiting ${seconds} s`;
}
