import { Module } from '@nestjs/common';
import { ActionsController } from './actions.controller';
import { ActionsModule } from './actions.module';
import { GroupsController } from './groups.controller';
import { StatsController } from './stats.controller';

/** The REST routes of actions, groups and stats. */
@Module({
  imports: [ActionsModule],
  controllers: [ActionsController, GroupsController, StatsController],
})
export class ActionsHttpModule {}
