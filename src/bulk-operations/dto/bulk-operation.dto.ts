import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { IsGroupKey } from '../../actions/dto/group-key.validator';
import { IsLockId } from '../../actions/dto/lock-id.validator';
import { IsRunAt } from '../../actions/dto/run-at.validator';
import { IsRequiredObject, IsTextOfLength } from '../../http/single-rule.validator';
import { ACTION_STATUSES } from '../../vocabulary';

/** Which actions a bulk operation takes; every field narrows, at least one is required. */
export class BulkFilterDto {
  @ApiPropertyOptional({ example: 'invoice.send' })
  @IsOptional()
  @IsTextOfLength(1, 200)
  type?: string;

  @ApiPropertyOptional({ example: '26', type: String })
  @IsOptional()
  @IsLockId()
  lockId?: string;

  @ApiPropertyOptional({ example: 'tenant:42' })
  @IsOptional()
  @IsGroupKey()
  groupKey?: string;

  @ApiPropertyOptional({ enum: ACTION_STATUSES, description: 'retry takes failed actions only; cancel pending, failed and running' })
  @IsOptional()
  @IsIn(ACTION_STATUSES)
  status?: string;

  @ApiPropertyOptional({ example: 'ECONNREFUSED', description: 'A substring of lastError (case-sensitive)' })
  @IsOptional()
  @IsTextOfLength(1, 1000)
  errorContains?: string;

  // The rule of runAt: Z or an offset, else the instant would depend on the server's zone.
  @ApiPropertyOptional({ format: 'date-time', description: 'Created at or after; ISO 8601 with Z or a UTC offset, as runAt' })
  @IsOptional()
  @IsRunAt()
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Created before; ISO 8601 with Z or a UTC offset, as runAt' })
  @IsOptional()
  @IsRunAt()
  createdBefore?: string;
}

/** Body of `POST /bulk-operations`. */
export class CreateBulkOperationDto {
  @ApiProperty({ enum: ['retry', 'cancel'] })
  @IsIn(['retry', 'cancel'])
  operation: 'retry' | 'cancel';

  @ApiProperty({ type: BulkFilterDto })
  // Required: without it the operation would have nothing to narrow (and the service nothing to read).
  @IsRequiredObject('an object naming at least one of type, lockId, groupKey, status, errorContains, createdAfter, createdBefore')
  @ValidateNested()
  @Type(() => BulkFilterDto)
  filter: BulkFilterDto;

  @ApiPropertyOptional({ default: false, description: 'Count what would change, change nothing (recorded too); absent: false, null refused' })
  // Absent means a real run; null is refused rather than read as "not a dry run", which would change actions.
  @ValidateIf((o: { dryRun?: unknown }) => o.dryRun !== undefined)
  @IsBoolean({ message: 'dryRun must be true or false' })
  dryRun?: boolean;
}

/** One bulk operation (its audit row). */
export class BulkOperationResponseDto {
  @ApiProperty({ example: '3' })
  id: string;

  @ApiProperty({ enum: ['retry', 'cancel'] })
  operation: string;

  @ApiProperty()
  dryRun: boolean;

  @ApiProperty({ type: 'object', additionalProperties: true })
  filter: Record<string, unknown>;

  @ApiProperty({ example: 'api-key:1a2b3c4d5e6f', description: "The API key's id (a hash prefix), 'anonymous' without API_KEY, or 'sql'" })
  actor: string;

  @ApiProperty({ example: 120, description: 'Actions the filter matched when the operation started' })
  matched: number;

  @ApiProperty({ example: 120, description: 'Actions changed (0 for a dry run)' })
  applied: number;

  @ApiProperty({ format: 'date-time' })
  startedAt: string;

  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  finishedAt: string | null;

  @ApiProperty({ nullable: true, type: String })
  error: string | null;
}

/** `GET /bulk-operations`. */
export class BulkOperationsResponseDto {
  @ApiProperty({ type: [BulkOperationResponseDto], description: 'Newest first' })
  items: BulkOperationResponseDto[];
}
