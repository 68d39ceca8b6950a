import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { ListGroupRateLimitsQuery } from './dto/list-group-rate-limits.query';
import { GroupRateLimitResponseDto, GroupRateLimitsPageDto, RateLimitResponseDto, RateLimitsDto } from './dto/rate-limit-responses.dto';
import { SetRateLimitDto } from './dto/set-rate-limit.dto';
import { GroupRateLimitResource } from './group-rate-limit.resource';
import { GROUP_RATE_LIMITS_PAGE, GroupRateLimitsService } from './group-rate-limits.service';
import { RateLimitResource } from './rate-limit.resource';
import { RateLimitsService } from './rate-limits.service';

/** `/rate-limits`: rate limits per action type and per group, changed at runtime (docs/flow-control.md). */
@ApiTags('flow control')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('rate-limits')
export class RateLimitsController {
  constructor(
    private readonly limits: RateLimitsService,
    private readonly groupLimits: GroupRateLimitsService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Rate limits in force: by action type (override or handler default), and the first page of those by group' })
  @ApiOkResponse({ type: RateLimitsDto })
  async list(): Promise<{ items: RateLimitResource[]; groups: GroupRateLimitResource[]; groupsNextCursor: string | null }> {
    const [types, groups] = await Promise.all([this.limits.list(), this.groupLimits.list(undefined, GROUP_RATE_LIMITS_PAGE.default)]);
    return { items: types.items, groups: groups.items, groupsNextCursor: groups.nextCursor };
  }

  // The group routes have two or more path segments, so ':type' (one) never takes them.
  @Get('groups')
  @ApiOperation({ summary: 'Rate limits by group, in lockId order' })
  @ApiOkResponse({ type: GroupRateLimitsPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'limit or after is invalid; `message` names it' })
  listGroups(@Query() query: ListGroupRateLimitsQuery): Promise<{ items: GroupRateLimitResource[]; nextCursor: string | null }> {
    return this.groupLimits.list(query.after, query.limit);
  }

  @Put('groups/by-key/:groupKey')
  @ApiOperation({ summary: "Set a string-keyed group's rate limit (a key not used yet can be limited before its first action)" })
  @ApiParam({ name: 'groupKey', example: 'tenant:42', description: 'The string group key, URL-encoded' })
  @ApiOkResponse({ type: GroupRateLimitResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'groupKey, perSecond or burst is invalid; `message` names it' })
  setGroupByKey(@Param('groupKey') groupKey: string, @Body() body: SetRateLimitDto): Promise<GroupRateLimitResource> {
    return this.groupLimits.set({ groupKey }, body);
  }

  @Delete('groups/by-key/:groupKey')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a string-keyed group's rate limit" })
  @ApiParam({ name: 'groupKey', example: 'tenant:42', description: 'The string group key, URL-encoded' })
  @ApiNoContentResponse({ description: 'Removed: the group starts its actions without spacing again' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'groupKey is invalid' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The group has no rate limit' })
  removeGroupByKey(@Param('groupKey') groupKey: string): Promise<void> {
    return this.groupLimits.remove({ groupKey });
  }

  @Put('groups/:lockId')
  @ApiOperation({ summary: "Set a group's rate limit: its starts at least 1/perSecond s apart (after a burst), on every instance" })
  @ApiParam({ name: 'lockId', example: '42' })
  @ApiOkResponse({ type: GroupRateLimitResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId, perSecond or burst is invalid; `message` names it' })
  setGroup(@Param('lockId') lockId: string, @Body() body: SetRateLimitDto): Promise<GroupRateLimitResource> {
    return this.groupLimits.set({ lockId }, body);
  }

  @Delete('groups/:lockId')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a group's rate limit: a head it held back may start at once" })
  @ApiParam({ name: 'lockId', example: '42' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'lockId is not a signed 64-bit integer' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The group has no rate limit' })
  removeGroup(@Param('lockId') lockId: string): Promise<void> {
    return this.groupLimits.remove({ lockId });
  }

  @Put(':type')
  @ApiOperation({ summary: "Set a type's rate limit (overrides the handler's default), shared by every instance" })
  @ApiParam({ name: 'type', example: 'invoice.send' })
  @ApiOkResponse({ type: RateLimitResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'type, perSecond or burst is invalid; `message` names it' })
  set(@Param('type') type: string, @Body() body: SetRateLimitDto): Promise<RateLimitResource> {
    return this.limits.set(type, body);
  }

  @Delete(':type')
  // 204 as every other delete: the limit now in force is GET /rate-limits's to say.
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Clear a type's override: the handler's default (if any) is in force again (see GET /rate-limits)" })
  @ApiParam({ name: 'type', example: 'invoice.send' })
  @ApiNoContentResponse({ description: 'Cleared' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'type is invalid' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The type has no override' })
  async clear(@Param('type') type: string): Promise<void> {
    await this.limits.clear(type);
  }
}
