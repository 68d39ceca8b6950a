import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ActionQueue } from './action-queue.contract';
import { ActionsService } from './actions.service';
import { ActionCommands } from './commands/action-commands.service';
import { ActionEnqueuer } from './enqueue/action-enqueuer.service';
import { GroupHandlerStateService } from './groups/group-handler-state.service';
import { GroupStateService } from './groups/group-state.service';
import { GroupViewsService } from './groups/group-views.service';
import { ActionReads } from './reads/action-reads.service';
import { BoundedActionReader } from './reads/bounded-action.reader';
import { QueueStatsService } from './stats/queue-stats.service';

/** The services of one job each (enqueue, reads, commands, group state, handlers' group state and views, stats); each route calls the one of its job. */
const JOB_SERVICES = [
  ActionEnqueuer,
  ActionReads,
  BoundedActionReader,
  ActionCommands,
  GroupStateService,
  GroupHandlerStateService,
  GroupViewsService,
  QueueStatsService,
];

/** The API half's services, and ActionQueue, the public face apps inject. */
@Module({
  imports: [ActionHandlersModule],
  providers: [...JOB_SERVICES, ActionsService, { provide: ActionQueue, useExisting: ActionsService }],
  exports: [...JOB_SERVICES, ActionsService, ActionQueue],
})
export class ActionsModule {}
