import { DynamicModule, Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { ActionsController } from './actions.controller';
import { ActivityService } from './activity.service';
import { ActionsService } from './actions.service';
import { GroupsController } from './groups.controller';
import { GroupViewsService } from './group-views.service';
import { StatsController } from './stats.controller';

/** Actions: the enqueue service (exported for in-process producers) and, unless API_ENABLED=false, the REST routes. */
@Module({})
export class ActionsModule {
  static register(options: { withRoutes: boolean }): DynamicModule {
    return {
      module: ActionsModule,
      imports: [ActionHandlersModule],
      controllers: options.withRoutes ? [ActionsController, GroupsController, StatsController] : [],
      providers: [ActionsService, GroupViewsService, ActivityService],
      exports: [ActionsService],
    };
  }
}
