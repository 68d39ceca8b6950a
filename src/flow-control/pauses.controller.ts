import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ActionIdPipe } from '../actions/action-id.pipe';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { CreatePauseDto } from './dto/create-pause.dto';
import { ListPausesQuery } from './dto/list-pauses.query';
import { PauseResponseDto, PausesPageDto } from './dto/pause-responses.dto';
import { PauseResource } from './pause.resource';
import { PausesService } from './pauses.service';

/** `/pauses`: pause and resume the queue, an action type or a group (docs/flow-control.md). */
@ApiTags('flow control')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('pauses')
export class PausesController {
  constructor(private readonly pauses: PausesService) {}

  @Post()
  @ApiOperation({
    summary: 'Pause the queue, an action type or a group: enqueue goes on, no instance claims what is paused, running actions finish',
  })
  @ApiCreatedResponse({ type: PauseResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A field is invalid or does not fit the scope; `message` names it' })
  pause(@Body() body: CreatePauseDto): Promise<PauseResource> {
    return this.pauses.pause(body);
  }

  @Get()
  @ApiOperation({ summary: 'Active pauses, in id order' })
  @ApiOkResponse({ type: PausesPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'scope, limit or after is invalid' })
  list(@Query() query: ListPausesQuery): Promise<{ items: PauseResource[]; nextCursor: string | null }> {
    return this.pauses.list(query);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Resume: end a pause; every instance claims what it held back at once' })
  @ApiParam({ name: 'id', example: '3' })
  @ApiNoContentResponse({ description: 'Resumed' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'id is not a positive 64-bit integer' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No active pause has this id' })
  resume(@Param('id', ActionIdPipe) id: string): Promise<void> {
    return this.pauses.resume(id);
  }
}
