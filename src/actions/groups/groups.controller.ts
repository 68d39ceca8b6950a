import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DatabaseUnavailableInterceptor } from '../../http/database-unavailable.interceptor';
import { DeepJsonInterceptor } from '../../http/deep-json.interceptor';
import { JsonBodyInterceptor } from '../../http/json-body.interceptor';
import { QueueValidationPipe } from '../../http/validation.pipe';
import { GroupResource } from '../action.resource';
import { ErrorResponseDto, GroupHandlerStateResponseDto, GroupResponseDto } from '../dto/action-responses.dto';
import { BlockedGroupsPageDto, DeepestGroupsDto, GroupTimelineDto } from '../dto/admin-responses.dto';
import { BlockedGroupsQuery, DeepestGroupsQuery, GroupTimelineQuery } from '../dto/group-views.query';
import { BlockedGroupsPage, DeepestGroupResource, GroupTimelineResource } from './group-views.resource';
import { GroupViewsService } from './group-views.service';
import { GroupStateService } from './group-state.service';
import { GroupHandlerStateResource } from './group-handler-state.resource';
import { GroupHandlerStateService } from './group-handler-state.service';

/** `GET /groups/...`: a group's state, blocked and deepest groups, a group's timeline, the state its handlers stored. */
@ApiTags('groups')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor, DeepJsonInterceptor)
@Controller('groups')
export class GroupsController {
  constructor(
    private readonly state: GroupStateService,
    private readonly views: GroupViewsService,
    private readonly handlerState: GroupHandlerStateService,
  ) {}

  // The fixed paths come before ':lockId', which would otherwise take them.
  @Get('blocked')
  @ApiOperation({ summary: 'Blocked groups (head failed under `block`) with the failing head and its error, in lockId order' })
  @ApiOkResponse({ type: BlockedGroupsPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'limit or after is invalid; `message` names it' })
  blocked(@Query() query: BlockedGroupsQuery): Promise<BlockedGroupsPage> {
    return this.views.blocked(query);
  }

  @Get('deepest')
  @ApiOperation({ summary: 'The groups with the most actions waiting or running, deepest first' })
  @ApiOkResponse({ type: DeepestGroupsDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'limit is invalid' })
  deepest(@Query() query: DeepestGroupsQuery): Promise<{ items: DeepestGroupResource[] }> {
    return this.views.deepest(query);
  }

  @Get('by-key/:groupKey/state')
  @ApiOperation({ summary: 'The state the handlers of the group a string key names stored (ctx.groupState), as GET /groups/:lockId/state' })
  @ApiParam({ name: 'groupKey', example: 'tenant:42', description: 'The string group key, URL-encoded' })
  @ApiOkResponse({ type: GroupHandlerStateResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'groupKey is not a valid group key' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The key was never used, or its group has no state' })
  @ApiPayloadTooLargeResponse({ type: ErrorResponseDto, description: 'The state is over MAX_RESPONSE_BYTES (the message says how to read it with SQL)' })
  stateByKey(@Param('groupKey') groupKey: string): Promise<GroupHandlerStateResource> {
    return this.handlerState.getByKey(groupKey);
  }

  @Delete('by-key/:groupKey/state')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Deletes the stored state of the group a string key names (an operator's reset)" })
  @ApiParam({ name: 'groupKey', example: 'tenant:42', description: 'The string group key, URL-encoded' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'groupKey is not a valid group key' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The key was never used, or its group has no state' })
  deleteStateByKey(@Param('groupKey') groupKey: string): Promise<void> {
    return this.handlerState.deleteByKey(groupKey);
  }

  // Before ':lockId/timeline', which would take a key named "timeline".
  @Get('by-key/:groupKey')
  @ApiOperation({ summary: 'The group a string group key names: its head, and whether it is blocked (as GET /groups/:lockId)' })
  @ApiParam({ name: 'groupKey', example: 'tenant:42', description: 'The string group key, URL-encoded' })
  @ApiOkResponse({ type: GroupResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'groupKey is not a valid group key' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No action was ever enqueued with this groupKey' })
  byKey(@Param('groupKey') groupKey: string): Promise<GroupResource> {
    return this.state.groupByKey(groupKey);
  }

  @Get(':lockId')
  @ApiOperation({ summary: "A group's head, and whether it is blocked" })
  @ApiParam({ name: 'lockId', example: '26' })
  @ApiOkResponse({ type: GroupResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId is not a signed 64-bit integer' })
  get(@Param('lockId') lockId: string): Promise<GroupResource> {
    return this.state.group(lockId);
  }

  @Get(':lockId/timeline')
  @ApiOperation({ summary: "A group's most recent actions in id order, each with every attempt (retries, lease expiries, releases) and the running one" })
  @ApiParam({ name: 'lockId', example: '26' })
  @ApiOkResponse({ type: GroupTimelineDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId, limit or before is invalid; `message` names it' })
  timeline(@Param('lockId') lockId: string, @Query() query: GroupTimelineQuery): Promise<GroupTimelineResource> {
    return this.views.timeline(lockId, query);
  }

  @Get(':lockId/state')
  @ApiOperation({ summary: 'The state the handlers of a group stored (ctx.groupState): its JSON value, its version, when it last changed' })
  @ApiParam({ name: 'lockId', example: '26' })
  @ApiOkResponse({ type: GroupHandlerStateResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId is not a signed 64-bit integer' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The group has no state' })
  @ApiPayloadTooLargeResponse({ type: ErrorResponseDto, description: 'The state is over MAX_RESPONSE_BYTES (the message says how to read it with SQL)' })
  handlerStateOf(@Param('lockId') lockId: string): Promise<GroupHandlerStateResource> {
    return this.handlerState.get(lockId);
  }

  @Delete(':lockId/state')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Deletes a group's stored state (an operator's reset: the next action that sets one starts at version 1)" })
  @ApiParam({ name: 'lockId', example: '26' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId is not a signed 64-bit integer' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The group has no state' })
  deleteHandlerState(@Param('lockId') lockId: string): Promise<void> {
    return this.handlerState.delete(lockId);
  }
}
