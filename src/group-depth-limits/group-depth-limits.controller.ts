import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { GroupDepthLimitResponseDto, GroupDepthLimitsResponseDto, SetGroupDepthLimitDto } from './dto/group-depth-limit.dto';
import { GroupDepthLimitResource } from './group-depth-limit.resource';
import { GroupDepthLimitsService } from './group-depth-limits.service';

/** `/group-depth-limits`: the maximum number of unfinished actions a group may hold, global and per type. */
@ApiTags('group-depth-limits')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A field is invalid; `message` names it' })
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('group-depth-limits')
export class GroupDepthLimitsController {
  constructor(private readonly limits: GroupDepthLimitsService) {}

  @Get()
  @ApiOperation({ summary: 'Every maximum group depth: the global one (type null), then per type' })
  @ApiOkResponse({ type: GroupDepthLimitsResponseDto })
  list(): Promise<{ items: GroupDepthLimitResource[] }> {
    return this.limits.list();
  }

  @Put('global')
  @ApiOperation({
    summary: 'Set the global maximum group depth',
    description:
      'An enqueue (REST or SQL) into a group already holding maxDepth unfinished actions is refused: 429, SQLSTATE 53400. A type limit wins over this one.',
  })
  @ApiOkResponse({ type: GroupDepthLimitResponseDto })
  setGlobal(@Body() body: SetGroupDepthLimitDto): Promise<GroupDepthLimitResource> {
    return this.limits.set(null, body.maxDepth);
  }

  @Delete('global')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove the global maximum group depth' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'None was set' })
  removeGlobal(): Promise<void> {
    return this.limits.remove(null);
  }

  @Put('types/:type')
  @ApiOperation({ summary: "Set one action type's maximum group depth (applies to enqueues of that type)" })
  @ApiParam({ name: 'type', example: 'instance.create' })
  @ApiOkResponse({ type: GroupDepthLimitResponseDto })
  setForType(@Param('type') type: string, @Body() body: SetGroupDepthLimitDto): Promise<GroupDepthLimitResource> {
    return this.limits.set(type, body.maxDepth);
  }

  @Delete('types/:type')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Remove one action type's maximum group depth" })
  @ApiParam({ name: 'type', example: 'instance.create' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'None was set for this type' })
  removeForType(@Param('type') type: string): Promise<void> {
    return this.limits.remove(type);
  }
}
