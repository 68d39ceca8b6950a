import { Controller, Get, Param, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { GroupResource } from './action.resource';
import { ActionsService } from './actions.service';
import { ErrorResponseDto, GroupResponseDto } from './dto/action-responses.dto';

/** `GET /groups/:lockId`: a group's head and whether it is blocked. */
@ApiTags('groups')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('groups')
export class GroupsController {
  constructor(private readonly actions: ActionsService) {}

  @Get(':lockId')
  @ApiOperation({ summary: "A group's head, and whether it is blocked" })
  @ApiParam({ name: 'lockId', example: '26' })
  @ApiOkResponse({ type: GroupResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId is not a signed 64-bit integer' })
  get(@Param('lockId') lockId: string): Promise<GroupResource> {
    return this.actions.group(lockId);
  }
}
