import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { SingleRule } from '../../http/single-rule.validator';

/** Largest bigint id. */
const MAX_ID = 9_223_372_036_854_775_807n;

/** Query of `GET /bulk-operations`: a class, so unknown parameters are refused as on every other list route. */
export class ListBulkOperationsQuery {
  @ApiPropertyOptional({ type: String, example: '120', description: 'Only operations with a smaller id (the last id of the previous page)' })
  @IsOptional()
  @SingleRule('isPositiveId', (v) => typeof v === 'string' && /^\d{1,19}$/.test(v) && BigInt(v) >= 1n && BigInt(v) <= MAX_ID, 'a positive integer id')
  before?: string;
}
