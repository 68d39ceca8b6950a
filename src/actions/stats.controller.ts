import { Controller, Get } from '@nestjs/common';
import { StatsResource } from './action.resource';
import { ActionsService } from './actions.service';

/** `GET /stats`: counts by status, oldest pending age, blocked groups. */
@Controller('stats')
export class StatsController {
  constructor(private readonly actions: ActionsService) {}

  @Get()
  get(): Promise<StatsResource> {
    return this.actions.stats();
  }
}
