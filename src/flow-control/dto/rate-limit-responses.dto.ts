import { ApiProperty } from '@nestjs/swagger';
import { Describes } from '../../actions/dto/describes';
import { GroupRateLimitResource } from '../group-rate-limit.resource';

/** A handler's default limit. */
export class RateLimitValueDto {
  @ApiProperty({ example: 20 })
  perSecond: number;

  @ApiProperty({ example: 1 })
  burst: number;
}

/** The limit in force for one type. */
export class RateLimitResponseDto {
  @ApiProperty({ example: 'invoice.send' })
  type: string;

  @ApiProperty({ example: 20, description: 'Starts per second in force, on all instances together' })
  perSecond: number;

  @ApiProperty({ example: 1 })
  burst: number;

  @ApiProperty({ enum: ['override', 'handler'], example: 'override', description: 'override: PUT /rate-limits/:type; handler: @ActionHandler rateLimit' })
  source: 'override' | 'handler';

  @ApiProperty({ type: RateLimitValueDto, nullable: true })
  handlerDefault: RateLimitValueDto | null;

  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' })
  updatedAt: string;
}

/** The limit of one group. */
export class GroupRateLimitResponseDto implements Describes<GroupRateLimitResource, GroupRateLimitResponseDto> {
  @ApiProperty({ example: '42', description: "The group's lock id" })
  lockId: string;

  @ApiProperty({ type: String, nullable: true, example: 'tenant:42', description: "The group's string key, when it has one" })
  groupKey: string | null;

  @ApiProperty({ example: 5, description: "The group's starts per second, on all instances together: its starts are at least 1/perSecond s apart" })
  perSecond: number;

  @ApiProperty({ example: 1, description: 'Starts allowed in quick succession after a quiet spell' })
  burst: number;

  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' })
  updatedAt: string;
}

/** `GET /rate-limits/groups`: one page in lock-id order. */
export class GroupRateLimitsPageDto {
  @ApiProperty({ type: GroupRateLimitResponseDto, isArray: true })
  items: GroupRateLimitResponseDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}

/** `GET /rate-limits`: the limits per type, and the first page of the limits per group. */
export class RateLimitsDto {
  @ApiProperty({ type: RateLimitResponseDto, isArray: true, description: 'Limits per action type' })
  items: RateLimitResponseDto[];

  @ApiProperty({ type: GroupRateLimitResponseDto, isArray: true, description: 'Limits per group, the first 100 in lockId order' })
  groups: GroupRateLimitResponseDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'More group limits: pass as `after` to GET /rate-limits/groups; null when `groups` is all of them',
  })
  groupsNextCursor: string | null;
}
