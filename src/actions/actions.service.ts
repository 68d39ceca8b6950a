import { Injectable } from '@nestjs/common';
import { ActionCommandResource, AttemptResource, BoundedActionResource, GroupResource, StatsResource } from './action.resource';
import { ActionQueue } from './action-queue.contract';
import { ActionCommands } from './commands/action-commands.service';
import { ActionEnqueuer } from './enqueue/action-enqueuer.service';
import { EnqueueInput, EnqueueResult, EnqueueTransaction, ListActionsFilter } from './enqueue-input.interface';
import { GroupStateService } from './groups/group-state.service';
import { ActionReads } from './reads/action-reads.service';
import { QueueStatsService } from './stats/queue-stats.service';

/**
 * The {@link ActionQueue} apps inject: one face for in-process callers over
 * the services that each do one job (enqueue, reads, commands, group state,
 * stats). It only hands each call on; the routes use those services directly.
 */
@Injectable()
export class ActionsService implements ActionQueue {
  constructor(
    private readonly enqueuer: ActionEnqueuer,
    private readonly reads: ActionReads,
    private readonly commands: ActionCommands,
    private readonly groups: GroupStateService,
    private readonly queueStats: QueueStatsService,
  ) {}

  enqueue(input: EnqueueInput, transaction?: EnqueueTransaction): Promise<EnqueueResult> {
    return this.enqueuer.enqueue(input, transaction);
  }

  enqueueBatch(inputs: EnqueueInput[], transaction?: EnqueueTransaction): Promise<EnqueueResult[]> {
    return this.enqueuer.enqueueBatch(inputs, transaction);
  }

  get(id: string, options?: { content?: boolean }): Promise<BoundedActionResource & { trace: AttemptResource[] }> {
    return this.reads.get(id, options);
  }

  list(query: ListActionsFilter): Promise<{ items: BoundedActionResource[]; nextCursor: string | null }> {
    return this.reads.list(query);
  }

  cancel(id: string): Promise<ActionCommandResource> {
    return this.commands.cancel(id);
  }

  retry(id: string): Promise<ActionCommandResource> {
    return this.commands.retry(id);
  }

  group(lockId: string): Promise<GroupResource> {
    return this.groups.group(lockId);
  }

  groupByKey(groupKey: string): Promise<GroupResource> {
    return this.groups.groupByKey(groupKey);
  }

  stats(): Promise<StatsResource> {
    return this.queueStats.stats();
  }
}
