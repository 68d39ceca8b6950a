import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ActionsService } from './actions.service';

/** The enqueue service, exported for in-process producers and the REST routes. */
@Module({
  imports: [ActionHandlersModule],
  providers: [ActionsService],
  exports: [ActionsService],
})
export class ActionsModule {}
