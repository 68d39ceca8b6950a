import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIntegerIn, IsNumberIn } from '../../http/single-rule.validator';
import { MAX_RATE_PER_SECOND, MIN_RATE_PER_SECOND } from '../../handlers/rate-limit';

/** Body of `PUT /rate-limits/:type`: the override of the type's limit. */
export class SetRateLimitDto {
  @ApiProperty({ minimum: MIN_RATE_PER_SECOND, maximum: MAX_RATE_PER_SECOND, example: 20, description: 'Starts per second, on all instances together' })
  @IsNumberIn(MIN_RATE_PER_SECOND, MAX_RATE_PER_SECOND)
  perSecond: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_RATE_PER_SECOND, default: 1, description: 'Starts allowed at once after a quiet spell' })
  @IsOptional()
  @IsIntegerIn(1, MAX_RATE_PER_SECOND)
  burst?: number;
}
