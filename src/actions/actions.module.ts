import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ActionQueue } from './action-queue.contract';
import { ActionsService } from './actions.service';

/** The enqueue service: ActionQueue (its public face, for apps) and ActionsService (for the routes and tests). */
@Module({
  imports: [ActionHandlersModule],
  providers: [ActionsService, { provide: ActionQueue, useExisting: ActionsService }],
  exports: [ActionsService, ActionQueue],
})
export class ActionsModule {}
