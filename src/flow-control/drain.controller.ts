import { Controller, Delete, Get, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { DrainService } from './drain.service';
import { DrainResponseDto } from './dto/pause-responses.dto';
import { DrainResource } from './pause.resource';

/** `/queue/drain`: stop claiming everywhere, let running actions finish, report when nothing runs. */
@ApiTags('flow control')
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('queue/drain')
export class DrainController {
  constructor(private readonly drain: DrainService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Start a drain: pause the whole queue (running actions finish); poll GET until `drained`' })
  @ApiOkResponse({ type: DrainResponseDto })
  start(): Promise<DrainResource> {
    return this.drain.start();
  }

  @Get()
  @ApiOperation({ summary: 'The drain: whether the queue is paused, how many actions still run, and whether it is drained' })
  @ApiOkResponse({ type: DrainResponseDto })
  state(): Promise<DrainResource> {
    return this.drain.state();
  }

  @Delete()
  @ApiOperation({ summary: 'End the drain: resume the queue' })
  @ApiOkResponse({ type: DrainResponseDto })
  stop(): Promise<DrainResource> {
    return this.drain.stop();
  }
}
