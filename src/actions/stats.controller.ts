import { Controller, Get, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { StatsResource } from './action.resource';
import { ActionsService } from './actions.service';
import { StatsResponseDto } from './dto/action-responses.dto';

/** `GET /stats`: counts by status, oldest pending age, blocked groups. */
@ApiTags('stats')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('stats')
export class StatsController {
  constructor(private readonly actions: ActionsService) {}

  @Get()
  @ApiOperation({ summary: 'Counts by status, oldest pending age, blocked groups' })
  @ApiOkResponse({ type: StatsResponseDto })
  get(): Promise<StatsResource> {
    return this.actions.stats();
  }
}
