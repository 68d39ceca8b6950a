import { BadRequestException, Controller, Delete, Get, HttpCode, Post, Req, UseInterceptors } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
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
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'The body has a field: the route takes none' })
  start(@Req() req: Request): Promise<DrainResource> {
    // The route takes no body, yet refuses fields as every other route does (a typo must not pass for a setting).
    const body: unknown = req.body;
    if (Array.isArray(body) || (body !== undefined && body !== null && typeof body !== 'object')) {
      throw new BadRequestException(['the body must be empty or {}: POST /queue/drain takes no fields']);
    }
    const fields = body ? Object.keys(body) : [];
    if (fields.length > 0) throw new BadRequestException(fields.map((f) => `property ${f} should not exist`));
    return this.drain.start();
  }

  @Get()
  @ApiOperation({ summary: 'The drain: whether the queue is paused, how many actions still run, and whether it is drained' })
  @ApiOkResponse({ type: DrainResponseDto })
  state(): Promise<DrainResource> {
    return this.drain.state();
  }

  /** Ends the drain; 204 with no body, as every delete of the operator routes (the state after it: GET). */
  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'End the drain: resume the queue (GET /queue/drain then shows it running)' })
  @ApiNoContentResponse({ description: 'Resumed (also when no drain was on)' })
  stop(): Promise<void> {
    return this.drain.stop();
  }
}
