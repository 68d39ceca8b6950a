import { Module } from '@nestjs/common';
import { ActionsController } from './actions.controller';
import { ActivityService } from './activity.service';
import { ActionsModule } from './actions.module';
import { GroupsController } from './groups.controller';
import { GroupViewsService } from './group-views.service';
import { StatsController } from './stats.controller';

/** The REST routes of actions, groups and stats, with the read models only they use. */
@Module({
  imports: [ActionsModule],
  controllers: [ActionsController, GroupsController, StatsController],
  providers: [GroupViewsService, ActivityService],
})
export class ActionsHttpModule {}
