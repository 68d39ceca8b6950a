import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, UseInterceptors, UsePipes } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { CreateScheduleDto, ScheduleResponseDto, SchedulesResponseDto } from './dto/schedule.dto';
import { ListedScheduleResource, ScheduleResource } from './schedule.resource';
import { SchedulesService } from './schedules.service';

/** `/schedules`: recurring actions (cron with a time zone), enqueued exactly once per tick. */
@ApiTags('schedules')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A field is invalid; `message` names it' })
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('schedules')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get()
  @ApiOperation({ summary: 'Every recurring action by name, with its next run' })
  @ApiOkResponse({ type: SchedulesResponseDto })
  list(): Promise<{ items: ListedScheduleResource[] }> {
    return this.schedules.list();
  }

  @Post()
  @ApiOperation({
    summary: 'Create a recurring action',
    description: 'Its first tick is the first after now. Each tick enqueues one action, exactly once across every instance; see catchUp for downtime.',
  })
  @ApiCreatedResponse({ type: ScheduleResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'A schedule of that name exists' })
  create(@Body() body: CreateScheduleDto): Promise<ScheduleResource> {
    return this.schedules.create(body);
  }

  @Get(':name')
  @ApiOperation({ summary: 'One recurring action' })
  @ApiParam({ name: 'name', example: 'nightly-report' })
  @ApiOkResponse({ type: ScheduleResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('name') name: string): Promise<ScheduleResource> {
    return this.schedules.get(name);
  }

  @Delete(':name')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a recurring action (its enqueued actions stay)' })
  @ApiParam({ name: 'name', example: 'nightly-report' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  remove(@Param('name') name: string): Promise<void> {
    return this.schedules.remove(name);
  }
}
