import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { RateLimitResponseDto, RateLimitsDto } from './dto/rate-limit-responses.dto';
import { SetRateLimitDto } from './dto/set-rate-limit.dto';
import { RateLimitResource } from './rate-limit.resource';
import { RateLimitsService } from './rate-limits.service';

/** `/rate-limits`: rate limits per action type, changed at runtime (docs/flow-control.md). */
@ApiTags('flow control')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('rate-limits')
export class RateLimitsController {
  constructor(private readonly limits: RateLimitsService) {}

  @Get()
  @ApiOperation({ summary: 'Rate limits in force, by action type (override or handler default)' })
  @ApiOkResponse({ type: RateLimitsDto })
  list(): Promise<{ items: RateLimitResource[] }> {
    return this.limits.list();
  }

  @Put(':type')
  @ApiOperation({ summary: "Set a type's rate limit (overrides the handler's default), shared by every instance" })
  @ApiParam({ name: 'type', example: 'invoice.send' })
  @ApiOkResponse({ type: RateLimitResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'type, perSecond or burst is invalid; `message` names it' })
  set(@Param('type') type: string, @Body() body: SetRateLimitDto): Promise<RateLimitResource> {
    return this.limits.set(type, body);
  }

  @Delete(':type')
  // 204 as every other delete: the limit now in force is GET /rate-limits's to say.
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Clear a type's override: the handler's default (if any) is in force again (see GET /rate-limits)" })
  @ApiParam({ name: 'type', example: 'invoice.send' })
  @ApiNoContentResponse({ description: 'Cleared' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'type is invalid' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'The type has no override' })
  async clear(@Param('type') type: string): Promise<void> {
    await this.limits.clear(type);
  }
}
