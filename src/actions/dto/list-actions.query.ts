import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ACTION_STATUSES, ActionStatus } from '../../vocabulary';
import { ACTION_TYPE_PATTERN } from '../../vocabulary';
import { IsGroupKey } from './group-key.validator';
import { IsInt64Text } from './int64.validator';
import { IsLockId, toLockIdString } from './lock-id.validator';
import type { ListActionsFilter } from '../enqueue-input.interface';
import type { Describes } from './describes';

/** Query of `GET /actions`. */
export class ListActionsQuery implements Describes<ListActionsFilter, ListActionsQuery> {
  @ApiPropertyOptional({ enum: ACTION_STATUSES })
  @IsOptional()
  @IsIn(ACTION_STATUSES)
  status?: ActionStatus;

  @ApiPropertyOptional({ type: String, example: '26' })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId()
  lockId?: string;

  /** Only the string-keyed group of this key (not with lockId). */
  @ApiPropertyOptional({ type: String, example: 'tenant:42', description: 'Only the group of this string group key (not with lockId)' })
  @IsOptional()
  @IsGroupKey()
  groupKey?: string;

  @ApiPropertyOptional({ example: 'instance.create' })
  @IsOptional()
  @Matches(ACTION_TYPE_PATTERN, { message: 'type must be a valid action type' })
  type?: string;

  /** Page size, 1..500, default 50. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(500)
  limit?: number;

  /** Cursor: the last id of the previous page. */
  @ApiPropertyOptional({ type: String, example: '67', description: 'The last id of the previous page' })
  @IsOptional()
  @IsInt64Text(0n)
  after?: string;
}
