import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

/** Query of `GET /actions/:id`. */
export class GetActionQuery {
  /**
   * `false` reads the action without its content (payload, result, last error,
   * and each attempt's error and stack), with their sizes: a read that always
   * fits MAX_RESPONSE_BYTES. Only `true` or `false`; anything else is a 400.
   */
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'true',
    description:
      "`false`: without payload, result, lastError and the trace's errors and stacks (`contentOmitted`, with `contentBytes`), so it always answers; " +
      'for an action too large to read whole (413)',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'content must be true or false' })
  content?: 'true' | 'false';
}
