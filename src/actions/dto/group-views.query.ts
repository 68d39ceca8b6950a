import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { IsLockId, toLockIdString } from './lock-id.validator';
import { PageLimit } from './page-limit.decorator';

/** Query of `GET /groups/blocked`. */
export class BlockedGroupsQuery {
  /** Page size, 1..200, default 50. */
  @PageLimit(200, 50)
  limit?: number;

  /** Cursor: the last lock id of the previous page. */
  @ApiPropertyOptional({ type: String, example: '26', description: 'The last lockId of the previous page (`nextCursor`)' })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId()
  after?: string;
}

/** Query of `GET /groups/deepest`. */
export class DeepestGroupsQuery {
  /** How many groups, 1..100, default 20. */
  @PageLimit(100, 20)
  limit?: number;
}

/** Query of `GET /groups/:lockId/timeline`. */
export class GroupTimelineQuery {
  /** How many actions, 1..200, default 50. */
  @PageLimit(200, 50)
  limit?: number;

  /** Only actions with a smaller id (older ones); default: the newest. */
  @ApiPropertyOptional({ type: String, example: '67', description: 'Only actions with a smaller id: pass `nextBefore` of the previous answer' })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId()
  before?: string;
}
