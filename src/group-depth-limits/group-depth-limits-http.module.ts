import { Module } from '@nestjs/common';
import { GroupDepthLimitsController } from './group-depth-limits.controller';
import { GroupDepthLimitsService } from './group-depth-limits.service';

/** The REST routes of the maximum group depths. */
@Module({
  controllers: [GroupDepthLimitsController],
  providers: [GroupDepthLimitsService],
})
export class GroupDepthLimitsHttpModule {}
