import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { MAX_RATE_PER_SECOND, MIN_RATE_PER_SECOND } from '../../handlers/rate-limit';

/** Body of `PUT /rate-limits/:type`: the override of the type's limit. */
export class SetRateLimitDto {
  @ApiProperty({ minimum: MIN_RATE_PER_SECOND, maximum: MAX_RATE_PER_SECOND, example: 20, description: 'Starts per second, on all instances together' })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'perSecond must be a number' })
  @Min(MIN_RATE_PER_SECOND)
  @Max(MAX_RATE_PER_SECOND)
  perSecond: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_RATE_PER_SECOND, default: 1, description: 'Starts allowed at once after a quiet spell' })
  @IsOptional()
  @IsInt({ message: 'burst must be an integer' })
  @Min(1)
  @Max(MAX_RATE_PER_SECOND)
  burst?: number;
}
