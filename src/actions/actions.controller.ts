import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post, Query, Res, UseInterceptors, UsePipes } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { DeepJsonInterceptor } from '../http/deep-json.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { ActionIdPipe } from './action-id.pipe';
import { ActionCommandResource, ActionResource, AttemptResource, BoundedActionResource } from './action.resource';
import { ActionCommands } from './commands/action-commands.service';
import {
  ActionCommandResponseDto,
  ActionResponseDto,
  ActionsBatchResponseDto,
  ActionsPageResponseDto,
  ActionWithTraceResponseDto,
  ErrorResponseDto,
} from './dto/action-responses.dto';
import { CreateActionDto } from './dto/create-action.dto';
import { CreateActionsBatchDto } from './dto/create-actions-batch.dto';
import { GetActionQuery } from './dto/get-action.query';
import { ListActionsQuery } from './dto/list-actions.query';
import { ActionEnqueuer } from './enqueue/action-enqueuer.service';
import { ActionReads } from './reads/action-reads.service';

/** What the OpenAPI document says of the `traceparent` request header. */
const TRACEPARENT_HEADER_DOC =
  "W3C Trace Context of the caller (version 00). Stored with the action(s) when no OpenTelemetry span is active in this service, so each attempt's span joins the caller's trace; an invalid value is ignored, as the W3C recommendation says.";

/** REST routes of actions; each turns HTTP into one call of the service of its job (enqueue, reads, commands). */
@ApiTags('actions')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A field is invalid; `message` names it' })
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor, DeepJsonInterceptor)
@Controller('actions')
export class ActionsController {
  constructor(
    private readonly enqueuer: ActionEnqueuer,
    private readonly reads: ActionReads,
    private readonly commands: ActionCommands,
  ) {}

  /** Enqueues one action: 201, or 200 with the existing action when the idempotency key was used. */
  @Post()
  @ApiOperation({ summary: 'Enqueue one action' })
  @ApiHeader({ name: 'traceparent', required: false, description: TRACEPARENT_HEADER_DOC })
  @ApiCreatedResponse({ type: ActionResponseDto, description: 'Enqueued' })
  @ApiOkResponse({ type: ActionResponseDto, description: 'The idempotency key was already used: the existing action' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'The idempotency key belongs to a different action' })
  @ApiPayloadTooLargeResponse({ type: ErrorResponseDto, description: 'Body over BODY_LIMIT_BYTES' })
  async create(
    @Body() body: CreateActionDto,
    @Res({ passthrough: true }) res: Response,
    @Headers('traceparent') traceparent?: string,
  ): Promise<ActionResource> {
    const { action, created } = await this.enqueuer.enqueue(body, undefined, traceparent);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return action;
  }

  /** Enqueues 1..1000 actions atomically, returned in input order. */
  @Post('batch')
  @ApiOperation({ summary: 'Enqueue 1..1000 actions atomically (all or nothing)' })
  @ApiHeader({ name: 'traceparent', required: false, description: TRACEPARENT_HEADER_DOC })
  @ApiBody({ type: CreateActionsBatchDto })
  @ApiCreatedResponse({ type: ActionsBatchResponseDto })
  @ApiPayloadTooLargeResponse({ type: ErrorResponseDto, description: 'Body over BODY_LIMIT_BYTES' })
  async createBatch(@Body() body: CreateActionsBatchDto, @Headers('traceparent') traceparent?: string): Promise<{ actions: ActionResource[] }> {
    const results = await this.enqueuer.enqueueBatch(body.actions, undefined, traceparent);
    return { actions: results.map((r) => r.action) };
  }

  /** A page of actions in id order. */
  @Get()
  @ApiOperation({ summary: 'A page of actions in id order' })
  @ApiOkResponse({
    type: ActionsPageResponseDto,
    description:
      'At most `limit` items, fewer when their payloads and results reach MAX_RESPONSE_BYTES (then `nextCursor` is set); ' +
      'an action whose content alone is over MAX_RESPONSE_BYTES is listed without it (`contentOmitted`, with `contentBytes`)',
  })
  list(@Query() query: ListActionsQuery) {
    return this.reads.list(query);
  }

  /** One action with its trace. */
  @Get(':id')
  @ApiOperation({ summary: 'One action with its trace (`content=false`: without its content)' })
  @ApiParam({ name: 'id', example: '17', description: 'Positive integer id' })
  @ApiOkResponse({ type: ActionWithTraceResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  @ApiPayloadTooLargeResponse({
    type: ErrorResponseDto,
    description: 'Its payload, result, error and trace are over MAX_RESPONSE_BYTES; `message` names `content=false`, which reads it without them',
  })
  get(@Param('id', ActionIdPipe) id: string, @Query() query: GetActionQuery): Promise<BoundedActionResource & { trace: AttemptResource[] }> {
    return this.reads.get(id, { content: query.content !== 'false' });
  }

  /** Cancels an action (a running one: requests cancellation). */
  @Post(':id/cancel')
  @ApiOperation({
    summary: 'Cancel an action',
    description:
      'Pending or failed: cancelled at once. Running: cancellation is requested (`cancelRequestedAt`); the holder is notified and aborts the handler within about a second (its heartbeat is the fallback), and the action ends `cancelled` once the handler has stopped or its lease has expired; only then may its group move on. An action whose payload, result and error are over MAX_RESPONSE_BYTES is answered without them (`contentOmitted`).',
  })
  @ApiParam({ name: 'id', example: '17' })
  @ApiOkResponse({ type: ActionCommandResponseDto, description: 'Cancelled, or still running with cancelRequestedAt set' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'Done or cancelled already' })
  @HttpCode(HttpStatus.OK)
  cancel(@Param('id', ActionIdPipe) id: string): Promise<ActionCommandResource> {
    return this.commands.cancel(id);
  }

  /** Retries a failed action. */
  @Post(':id/retry')
  @ApiOperation({
    summary: 'Retry a failed action: in place under `block`, as a new action at the group tail under `skip`',
    description:
      'The answer is the action (under `skip`, its copy), without its payload, result and error when these are over MAX_RESPONSE_BYTES (`contentOmitted`). A `skip` action stored past the payload limit cannot be copied: 413 naming the limit.',
  })
  @ApiParam({ name: 'id', example: '17' })
  @ApiOkResponse({ type: ActionCommandResponseDto })
  @ApiPayloadTooLargeResponse({
    type: ErrorResponseDto,
    description: "A `skip` action whose payload is over the database's payload limit (aq.max_payload_bytes) cannot be enqueued again",
  })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'Not failed, or already retried' })
  @HttpCode(HttpStatus.OK)
  retry(@Param('id', ActionIdPipe) id: string): Promise<ActionCommandResource> {
    return this.commands.retry(id);
  }
}
