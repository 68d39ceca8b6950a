import { Controller, Get, Param } from '@nestjs/common';
import { GroupResource } from './action.resource';
import { ActionsService } from './actions.service';

/** `GET /groups/:lockId`: a group's head and whether it is blocked. */
@Controller('groups')
export class GroupsController {
  constructor(private readonly actions: ActionsService) {}

  @Get(':lockId')
  get(@Param('lockId') lockId: string): Promise<GroupResource> {
    return this.actions.group(lockId);
  }
}
