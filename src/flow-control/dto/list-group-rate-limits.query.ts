import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { INT64_MIN, IsInt64Text } from '../../actions/dto/int64.validator';
import { PageLimit } from '../../actions/dto/page-limit.decorator';

/** Query of `GET /rate-limits/groups`: one page of group limits in lock-id order. */
export class ListGroupRateLimitsQuery {
  /** 1..500, default 100. */
  @PageLimit(500, 100)
  limit?: number;

  @ApiPropertyOptional({ example: '42', type: String, description: 'The last lockId of the previous page (its nextCursor)' })
  @IsOptional()
  @IsInt64Text(INT64_MIN)
  after?: string;
}
