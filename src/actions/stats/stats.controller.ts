import { Controller, Get, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DatabaseUnavailableInterceptor } from '../../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../../http/json-body.interceptor';
import { QueueValidationPipe } from '../../http/validation.pipe';
import { StatsResource } from '../action.resource';
import { ActivityResource } from './activity.resource';
import { ActivityService } from './activity.service';
import { ErrorResponseDto, StatsResponseDto } from '../dto/action-responses.dto';
import { ActivityQuery, StatsQuery } from '../dto/activity.query';
import { ActivityDto } from '../dto/admin-responses.dto';
import { QueueStatsService } from './queue-stats.service';

/** `GET /stats`: counts by status, oldest due age, blocked groups; `GET /stats/activity`: recent throughput and latency. */
@ApiTags('stats')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('stats')
export class StatsController {
  constructor(
    private readonly queueStats: QueueStatsService,
    private readonly activityService: ActivityService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Counts by status (exact, or labelled estimates on a large table), due versus scheduled, oldest due age, blocked groups' })
  @ApiOkResponse({ type: StatsResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'An unknown query parameter; `message` names it' })
  get(@Query() _query: StatsQuery): Promise<StatsResource> {
    return this.queueStats.stats();
  }

  @Get('activity')
  @ApiOperation({ summary: 'Actions ended per second and enqueue-to-start latency, in 10-second buckets, over the last minutes' })
  @ApiOkResponse({ type: ActivityDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'minutes is invalid' })
  activity(@Query() query: ActivityQuery): Promise<ActivityResource> {
    return this.activityService.activity(query);
  }
}
