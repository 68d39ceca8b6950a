import { ApiProperty } from '@nestjs/swagger';
import { IsIntegerIn } from '../../http/single-rule.validator';

/** Largest depth limit accepted: far above any sensible backlog, and within PostgreSQL's integer. */
export const MAX_GROUP_DEPTH_LIMIT = 1_000_000_000;

/** Body of `PUT /group-depth-limits/...`. */
export class SetGroupDepthLimitDto {
  /** Unfinished actions a group may hold before an enqueue into it is refused (429). */
  @ApiProperty({ minimum: 1, maximum: MAX_GROUP_DEPTH_LIMIT, example: 1000, description: 'Unfinished actions a group may hold; the next enqueue gets 429' })
  @IsIntegerIn(1, MAX_GROUP_DEPTH_LIMIT)
  maxDepth: number;
}

/** One limit, as the routes answer it. */
export class GroupDepthLimitResponseDto {
  @ApiProperty({ example: 'invoice.send', nullable: true, type: String, description: 'The action type it applies to; null: the global limit' })
  type: string | null;

  @ApiProperty({ example: 1000 })
  maxDepth: number;

  @ApiProperty({ example: '2025-01-01T12:00:00.000Z', format: 'date-time' })
  updatedAt: string;
}

/** `GET /group-depth-limits`. */
export class GroupDepthLimitsResponseDto {
  @ApiProperty({ type: [GroupDepthLimitResponseDto], description: 'The global limit (type null) first, then by type' })
  items: GroupDepthLimitResponseDto[];
}
