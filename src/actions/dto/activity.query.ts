import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Query of `GET /stats/activity`. */
export class ActivityQuery {
  /** How far back, in minutes, 1..60, default 15. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 60, default: 15 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'minutes must be an integer' })
  @Min(1)
  @Max(60)
  minutes?: number;
}

/**
 * Query of `GET /stats`: it takes no parameter; the class is there so that an
 * unknown one is refused with 400 naming it, as on every other route.
 */
export class StatsQuery {}
