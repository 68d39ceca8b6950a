import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { StatsResource } from './action.resource';
import { ActionsService } from './actions.service';
import { StatsResponseDto } from './dto/action-responses.dto';

/** `GET /stats`: counts by status, oldest pending age, blocked groups. */
@ApiTags('stats')
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
