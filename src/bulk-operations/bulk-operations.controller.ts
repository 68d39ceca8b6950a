import { Body, Controller, Get, Inject, Post, Query, Req, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { bulkActor } from './bulk-actor';
import { BulkOperationResource } from './bulk-operation.resource';
import { BulkOperationsService } from './bulk-operations.service';
import { BulkOperationResponseDto, BulkOperationsResponseDto, CreateBulkOperationDto } from './dto/bulk-operation.dto';
import { ListBulkOperationsQuery } from './dto/list-bulk-operations.query';

/** `/bulk-operations`: retry or cancel every action matching a filter, with a dry run, audited. */
@ApiTags('bulk-operations')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A field is invalid; `message` names it' })
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('bulk-operations')
export class BulkOperationsController {
  constructor(
    private readonly bulk: BulkOperationsService,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Retry or cancel every action matching a filter (dryRun: count only)',
    description:
      'Applied in chunks of 500 actions in id order, one transaction each, with the statements of POST /actions/:id/retry and /cancel: a retried group keeps its order. Answered when done, with the audit row (matched, applied).',
  })
  @ApiCreatedResponse({ type: BulkOperationResponseDto })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: "A retry copy met its group's maximum depth; the chunks before it stay applied" })
  create(@Body() body: CreateBulkOperationDto, @Req() req: Request): Promise<BulkOperationResource> {
    return this.bulk.run(body.operation, body.filter, body.dryRun ?? false, bulkActor(req, this.settings.API_KEY !== undefined));
  }

  @Get()
  @ApiOperation({ summary: 'The audit of bulk operations, newest first (100 per page)' })
  @ApiOkResponse({ type: BulkOperationsResponseDto })
  list(@Query() query: ListBulkOperationsQuery): Promise<{ items: BulkOperationResource[] }> {
    return this.bulk.list(query.before);
  }
}
