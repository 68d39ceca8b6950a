import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ActionIdPipe } from './action-id.pipe';
import { ActionResource, AttemptResource } from './action.resource';
import { ActionsService } from './actions.service';
import { CreateActionDto } from './dto/create-action.dto';
import { CreateActionsBatchDto } from './dto/create-actions-batch.dto';
import { ListActionsQuery } from './dto/list-actions.query';

/** REST routes of actions; each turns HTTP into one ActionsService call. */
@Controller('actions')
export class ActionsController {
  constructor(private readonly actions: ActionsService) {}

  /** Enqueues one action: 201, or 200 with the existing action when the idempotency key was used. */
  @Post()
  async create(@Body() body: CreateActionDto, @Res({ passthrough: true }) res: Response): Promise<ActionResource> {
    const { action, created } = await this.actions.enqueue(body);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return action;
  }

  /** Enqueues 1..1000 actions atomically, returned in input order. */
  @Post('batch')
  async createBatch(@Body() body: CreateActionsBatchDto): Promise<{ actions: ActionResource[] }> {
    const results = await this.actions.enqueueBatch(body.actions);
    return { actions: results.map((r) => r.action) };
  }

  /** A page of actions in id order. */
  @Get()
  list(@Query() query: ListActionsQuery) {
    return this.actions.list(query);
  }

  /** One action with its trace. */
  @Get(':id')
  get(@Param('id', ActionIdPipe) id: string): Promise<ActionResource & { trace: AttemptResource[] }> {
    return this.actions.get(id);
  }

  /** Cancels a pending or failed action. */
  @Post(':id/cancel')
  @HttpCode(HttpStatus.OK)
  cancel(@Param('id', ActionIdPipe) id: string): Promise<ActionResource> {
    return this.actions.cancel(id);
  }

  /** Retries a failed action. */
  @Post(':id/retry')
  @HttpCode(HttpStatus.OK)
  retry(@Param('id', ActionIdPipe) id: string): Promise<ActionResource> {
    return this.actions.retry(id);
  }
}
