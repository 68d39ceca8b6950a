import { Module } from '@nestjs/common';
import { ActionsController } from './actions.controller';
import { ActivityService } from './stats/activity.service';
import { ActionsModule } from './actions.module';
import { GroupsController } from './groups/groups.controller';
import { StatsController } from './stats/stats.controller';

/** The REST routes of actions, groups and stats, over the services of ActionsModule and the activity read model only they use. */
@Module({
  imports: [ActionsModule],
  controllers: [ActionsController, GroupsController, StatsController],
  providers: [ActivityService],
})
export class ActionsHttpModule {}
